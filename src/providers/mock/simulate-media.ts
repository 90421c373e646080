import type { ImagesResponse } from 'openai/resources/images';
import { InvalidRequestError } from '../../errors.ts';
import { toBase64 } from '../../internal/bytes.ts';
import { encodePng } from '../../internal/png.ts';
import { sha256, sha256Bytes } from '../../internal/sha256.ts';
import { encodeWav, wavSeconds } from '../../internal/wav.ts';
import type { ImageBody, MediaApi, MediaCall, ProviderSpeech, ProviderTranscription } from '../media-api.ts';
import type { MockFailure, MockReply } from './simulator.ts';

/** Largest side the simulator draws (a 4K image of stored PNG data would be 25 MB). */
const MAX_SIDE = 2048;
/** Most pixels one call draws, all images together: more would hold the event loop for seconds. */
const MAX_PIXELS = 8 * 1024 * 1024;
const SAMPLE_RATE = 16_000;
/** Speaking rate the simulated audio's length follows: about 15 characters a second. */
const CHARACTERS_PER_SECOND = 15;

/**
 * The simulator's media: decodable PNGs of the size asked, their pixels drawn from the prompt's SHA-256; WAV speech
 * whose length fits the text (any other format asked is answered as WAV, said in a warning); transcripts derived
 * from the audio's bytes and length. `next` hands out a scripted reply: a string is the transcript (or the image's
 * revised prompt), a failure fails the call.
 */
export function simulateMedia(
  replies: MockReply[],
  failure: (reply: MockFailure, model: string) => Error,
): Required<MediaApi> {
  // The next queued reply a media call can take: a failure fails it, a string is its text.
  const next = (call: MediaCall<unknown>): string | undefined => {
    const reply = replies[0];
    if (reply && typeof reply === 'object' && 'error' in reply) {
      replies.shift();
      throw failure(reply, call.model);
    }
    return typeof reply === 'string' ? (replies.shift() as string) : undefined;
  };
  return {
    async generateImage(call) {
      return images(call, next(call) ?? call.body.prompt);
    },
    async editImage(call) {
      // The first image's bytes join the prompt in the seed, so another picture edits to another result.
      const seed = `${call.body.prompt}:${toBase64(sha256Bytes(call.body.image[0]!.data))}`;
      return images({ ...call, body: { ...call.body, prompt: seed } }, next(call) ?? call.body.prompt);
    },
    async createSpeech(call): Promise<ProviderSpeech> {
      next(call);
      const asked = call.body.response_format ?? 'mp3';
      if (asked !== 'wav' && asked !== 'pcm') {
        call.warn({
          code: 'converted_parameter',
          param: 'response_format',
          message: `The simulator makes WAV audio only: ${asked} was asked, the audio is WAV (audio/wav).`,
        });
      }
      const wav = speak(call.body.input, call.body.speed ?? 1);
      if (asked === 'pcm') return { audio: wav.subarray(44), format: 'pcm', contentType: 'audio/pcm' };
      return { audio: wav, format: 'wav', contentType: 'audio/wav' };
    },
    async transcribe(call): Promise<ProviderTranscription> {
      const seconds = wavSeconds(call.body.file.data) ?? call.body.file.data.byteLength / (SAMPLE_RATE * 2);
      const text = next(call) ?? transcript(call.body.file.data, seconds);
      const format = call.body.response_format;
      const rounded = Math.round(seconds * 1000) / 1000;
      const usage = { type: 'duration', seconds: Math.ceil(seconds) };
      if (format === 'json') return { json: { text, usage }, seconds };
      if (format === 'verbose_json') {
        const segments = [{ id: 0, seek: 0, start: 0, end: rounded, text }];
        const json = { task: 'transcribe', language: call.body.language ?? 'english', duration: rounded, text };
        return { json: { ...json, segments, usage }, seconds };
      }
      if (format === 'text') return { text: `${text}\n`, seconds };
      const end = timestamp(rounded, format === 'srt' ? ',' : '.');
      const cue = `00:00:00${format === 'srt' ? ',' : '.'}000 --> ${end}\n${text}\n`;
      return { text: format === 'srt' ? `1\n${cue}\n` : `WEBVTT\n\n${cue}\n`, seconds };
    },
  };
}

function images(call: MediaCall<ImageBody>, revised: string): ImagesResponse {
  const [width, height] = sizeOf(call.body.size);
  const count = call.body.n ?? 1;
  if (width * height * count > MAX_PIXELS) {
    throw new InvalidRequestError(
      `The simulator draws at most ${MAX_PIXELS / 1024 / 1024} megapixels a call: ${count} images of ` +
        `${width}x${height} are more; ask for fewer or smaller images.`,
      'size',
    );
  }
  if (call.body.response_format === 'url') {
    call.warn({
      code: 'converted_parameter',
      param: 'response_format',
      message: 'The simulator has nowhere to host images: they are answered as b64_json.',
    });
  }
  const data = Array.from({ length: count }, (_, index) => {
    const seed = sha256(`${call.body.prompt}#${index}`);
    const png = encodePng(width, height, (x, y) => {
      // A diagonal gradient between two colours of the seed, with a band every 64 pixels: one prompt, one picture.
      const t = (x + y) / (width + height);
      const band = ((x >> 6) + (y >> 6)) % 2 === 0 ? 0 : 24;
      const mix = (a: number, b: number) => Math.min(255, Math.round(a + (b - a) * t) + band);
      return [mix(seed[0]!, seed[3]!), mix(seed[1]!, seed[4]!), mix(seed[2]!, seed[5]!)];
    });
    return { b64_json: toBase64(png), revised_prompt: revised };
  });
  return { created: Math.floor(Date.now() / 1000), data, output_format: 'png', size: `${width}x${height}` };
}

function sizeOf(size: string | null | undefined): [number, number] {
  const match = /^(\d+)x(\d+)$/.exec(size ?? '');
  if (!match) return [1024, 1024];
  return [Math.min(MAX_SIDE, Math.max(1, Number(match[1]))), Math.min(MAX_SIDE, Math.max(1, Number(match[2])))];
}

/** A tone per word, each as long as the word takes to say: a WAV whose length fits the text. */
function speak(text: string, speed: number): Uint8Array {
  const seconds = Math.max(0.25, text.length / CHARACTERS_PER_SECOND / speed);
  const samples = new Int16Array(Math.round(seconds * SAMPLE_RATE));
  const words = text.split(/\s+/).filter(Boolean);
  const perWord = samples.length / Math.max(1, words.length);
  for (let i = 0; i < samples.length; i++) {
    const word = words[Math.min(words.length - 1, Math.floor(i / perWord))] ?? '';
    const pitch = 180 + ((word.length * 37) % 220);
    samples[i] = Math.round(Math.sin((2 * Math.PI * pitch * i) / SAMPLE_RATE) * 8000);
  }
  return encodeWav(samples, SAMPLE_RATE);
}

/** A transcript made from the audio's digest and length: the same file, the same words. */
function transcript(audio: Uint8Array, seconds: number): string {
  const digest = toBase64(sha256Bytes(audio))
    .replace(/[^a-z]/gi, '')
    .slice(0, 8)
    .toLowerCase();
  return `Simulated transcript of ${seconds.toFixed(2)} seconds of audio (${digest}).`;
}

function timestamp(seconds: number, separator: string): string {
  const whole = Math.floor(seconds);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  const millis = Math.round((seconds - whole) * 1000);
  const clock = `${pad(Math.floor(whole / 3600))}:${pad(Math.floor(whole / 60) % 60)}:${pad(whole % 60)}`;
  return `${clock}${separator}${pad(millis, 3)}`;
}

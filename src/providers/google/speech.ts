import { InvalidRequestError } from '../../errors.ts';
import { bytesFromBase64 } from '../../internal/bytes.ts';
import { pcmToWav } from '../../internal/wav.ts';
import type { MediaCall, ProviderSpeech, SpeechBody } from '../media-api.ts';

/** Gemini's prebuilt voices (the speech generation guide's list), by their lower-cased names. */
const GEMINI_VOICES = new Map(
  (
    'Zephyr Puck Charon Kore Fenrir Leda Orus Aoede Callirrhoe Autonoe Enceladus Iapetus Umbriel Algieba Despina ' +
    'Erinome Algenib Rasalgethi Laomedeia Achernar Alnilam Schedar Gacrux Pulcherrima Achird Zubenelgenubi ' +
    'Vindemiatrix Sadachbia Sadaltager Sulafat'
  )
    .split(' ')
    .map((name) => [name.toLowerCase(), name]),
);

/**
 * OpenAI's voices as the nearest Gemini voice by the character each is described with (docs/media.md has the
 * table): a conversion, said in a warning, so a request written for OpenAI still speaks.
 */
export const OPENAI_VOICES: Readonly<Record<string, string>> = {
  alloy: 'Kore',
  ash: 'Orus',
  ballad: 'Algieba',
  coral: 'Aoede',
  echo: 'Charon',
  fable: 'Puck',
  nova: 'Zephyr',
  onyx: 'Algenib',
  sage: 'Sadaltager',
  shimmer: 'Achernar',
  verse: 'Sadachbia',
  marin: 'Sulafat',
  cedar: 'Gacrux',
};

/** The sample rate Gemini's speech comes at when its media type does not say (24 kHz, as OpenAI's `pcm`). */
const DEFAULT_RATE = 24_000;

/**
 * The `generateContent` body of an OpenAI speech body for a Gemini TTS model: the text as the one user part, audio
 * asked with `responseModalities: ["AUDIO"]`, the voice as a prebuilt voice. `instructions` go before the text as
 * the spoken direction Gemini takes in its prompt; `speed` is dropped; a format other than WAV or PCM is answered as
 * WAV. Each said in a warning.
 */
export function geminiSpeechRequest(call: MediaCall<SpeechBody>): Record<string, unknown> {
  const { input, instructions, speed, response_format: format } = call.body;
  if (speed !== undefined) {
    call.warn({
      code: 'unsupported_parameter',
      param: 'speed',
      message: 'Gemini TTS takes no speed (ask for a pace in "instructions"): speed was dropped.',
    });
  }
  if (format !== undefined && format !== 'wav' && format !== 'pcm') {
    call.warn({
      code: 'converted_parameter',
      param: 'response_format',
      message: `Gemini TTS answers PCM audio only: ${format} was asked, the audio is WAV (audio/wav).`,
    });
  }
  let text = input;
  if (instructions) {
    text = `${instructions.trim().replace(/:$/, '')}: ${input}`;
    call.warn({
      code: 'converted_parameter',
      param: 'instructions',
      message: 'Gemini TTS takes its direction in the prompt: the instructions were sent before the text.',
    });
  }
  return {
    contents: [{ role: 'user', parts: [{ text }] }],
    generationConfig: {
      responseModalities: ['AUDIO'],
      speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: geminiVoice(call) } } },
    },
  };
}

/** A Gemini voice as itself (its own spelling), an OpenAI voice as its counterpart, any other name as written. */
function geminiVoice(call: MediaCall<SpeechBody>): string {
  const voice = call.body.voice;
  if (typeof voice !== 'string') {
    throw new InvalidRequestError(
      `${call.model} speaks in Gemini's prebuilt voices (Kore, Puck, …): a custom voice { id } is OpenAI's.`,
      'voice',
      'unsupported_parameter',
    );
  }
  const gemini = GEMINI_VOICES.get(voice.toLowerCase());
  if (gemini) return gemini;
  const mapped = OPENAI_VOICES[voice.toLowerCase()];
  if (!mapped) return voice;
  call.warn({
    code: 'converted_parameter',
    param: 'voice',
    message: `Gemini TTS has no voice "${voice}" (OpenAI's): the nearest prebuilt voice, ${mapped}, speaks.`,
  });
  return mapped;
}

interface SpeechAnswer {
  candidates?: Array<{ content?: { parts?: unknown }; finishReason?: string }>;
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number };
}

/**
 * The audio of a Gemini TTS answer: its `inlineData` part of 16-bit PCM (`audio/L16;codec=pcm;rate=24000`; the rate
 * read from the media type) wrapped as WAV, or as is for `pcm`; the tokens from `usageMetadata`. A string: what is
 * wrong with the answer.
 */
export function geminiSpeechOf(
  answer: unknown,
  format: string | undefined,
  warn: MediaCall<unknown>['warn'],
): ProviderSpeech | string {
  const candidate = (answer as SpeechAnswer | null)?.candidates?.[0];
  const parts = candidate?.content?.parts;
  const inline = (Array.isArray(parts) ? parts : [])
    .map((part) => (part as { inlineData?: { mimeType?: unknown; data?: unknown } } | null)?.inlineData)
    .find((data) => typeof data?.mimeType === 'string' && data.mimeType.startsWith('audio/'));
  if (!inline || typeof inline.data !== 'string') {
    return `an answer without an audio part (finish reason ${candidate?.finishReason ?? 'none'})`;
  }
  const [type, ...params] = String(inline.mimeType).split(';');
  if (!/^audio\/(l16|pcm)$/i.test(type!.trim())) return `audio in ${inline.mimeType}, not 16-bit PCM`;
  const rateParam = params.map((param) => /^\s*rate=(\d+)\s*$/i.exec(param)?.[1]).find(Boolean);
  const rate = rateParam ? Number(rateParam) : DEFAULT_RATE;
  // Labelled L16, but little-endian as a WAV file holds it (Google's own examples write it to WAV unchanged).
  const pcm = bytesFromBase64(inline.data);
  const usage = (answer as SpeechAnswer).usageMetadata;
  const tokens = { input_text: usage?.promptTokenCount ?? 0, output_audio: usage?.candidatesTokenCount ?? 0 };
  if (format !== 'pcm') return { audio: pcmToWav(pcm, rate), format: 'wav', contentType: 'audio/wav', tokens };
  if (rate !== DEFAULT_RATE) {
    warn({
      code: 'converted_parameter',
      param: 'response_format',
      message: `Gemini answered PCM at ${rate} Hz, not OpenAI's 24000 Hz: the samples are as it sent them.`,
    });
  }
  return { audio: pcm, format: 'pcm', contentType: 'audio/pcm', tokens };
}

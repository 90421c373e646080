import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createGateway, RateLimitError } from '../../src/index.ts';
import { pngSize } from '../../src/internal/png.ts';
import { wavSeconds } from '../../src/internal/wav.ts';
import { MockProvider } from '../../src/testing/index.ts';

/** The simulator's media: real PNGs, WAVs and transcripts, deterministic, scripted like chat. */
const gateway = createGateway({ env: {}, mock: true });

/** The PNG's pixels, decoded with zlib as any reader would (IDAT inflated, filter bytes checked). */
function decodePng(bytes: Uint8Array): { width: number; height: number; pixels: Uint8Array } {
  const size = pngSize(bytes)!;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: Uint8Array[] = [];
  for (let at = 8; at < bytes.length; ) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    if (type === 'IDAT') parts.push(bytes.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(parts));
  expect(raw.length).toBe(size.height * (1 + size.width * 3));
  return { ...size, pixels: new Uint8Array(raw) };
}

describe('simulated media', () => {
  it('createImage: a decodable PNG of the size asked, the same pixels for the same prompt', async () => {
    const first = await gateway.createImage({ model: 'gpt-image-1-mini', prompt: 'a red fox', size: '1024x1536' });
    const again = await gateway.createImage({ model: 'gpt-image-1-mini', prompt: 'a red fox', size: '1024x1536' });
    const other = await gateway.createImage({ model: 'gpt-image-1-mini', prompt: 'a blue bird', size: '1024x1536' });
    const png = Buffer.from(first.data![0]!.b64_json!, 'base64');
    const decoded = decodePng(png);
    expect([decoded.width, decoded.height]).toEqual([1024, 1536]);
    expect(again.data![0]!.b64_json).toBe(first.data![0]!.b64_json);
    expect(other.data![0]!.b64_json).not.toBe(first.data![0]!.b64_json);
    expect(first.switchyard).toMatchObject({ model: 'gpt-image-1-mini', provider: 'mock' });
  });

  it('n images, each its own picture', async () => {
    const answer = await gateway.createImage({ model: 'dall-e-3', prompt: 'two cats', n: 2, size: '64x32' });
    expect(answer.data).toHaveLength(2);
    expect(answer.data![0]!.b64_json).not.toBe(answer.data![1]!.b64_json);
    expect(pngSize(Buffer.from(answer.data![1]!.b64_json!, 'base64'))).toEqual({ width: 64, height: 32 });
  });

  it('createSpeech: WAV audio whose length fits the text; mp3 asked is WAV with a warning', async () => {
    const short = await gateway.createSpeech({ model: 'tts-1', voice: 'alloy', input: 'Hello there.' });
    const long = await gateway.createSpeech({
      model: 'tts-1',
      voice: 'alloy',
      input: 'Hello there. '.repeat(20),
      response_format: 'wav',
    });
    expect(short.content_type).toBe('audio/wav');
    expect(short.switchyard.warnings.map((warning) => warning.code)).toContain('converted_parameter');
    expect(long.switchyard.warnings).toEqual([]);
    const seconds = wavSeconds(long.audio)!;
    expect(seconds).toBeGreaterThan(wavSeconds(short.audio)! * 10);
    expect(seconds).toBeCloseTo(260 / 15, 0);
  });

  it('createTranscription: a transcript derived from the audio, in each response_format', async () => {
    const speech = await gateway.createSpeech({ model: 'tts-1', voice: 'alloy', input: 'One two three four.' });
    const file = { data: speech.audio, name: 'speech.wav', type: 'audio/wav' };
    const json = await gateway.createTranscription({ model: 'whisper-1', file });
    const again = await gateway.createTranscription({ model: 'whisper-1', file });
    expect(json.text).toBe(again.text);
    expect(json.text).toContain('seconds of audio');
    expect(JSON.parse(json.body).text).toBe(json.text);
    const srt = await gateway.createTranscription({ model: 'whisper-1', file, response_format: 'srt' });
    expect(srt.body).toMatch(/^1\n00:00:00,000 --> 00:00:01,/);
    expect(srt.content_type).toMatch(/^text\/plain/);
    const verbose = await gateway.createTranscription({ model: 'whisper-1', file, response_format: 'verbose_json' });
    expect(verbose.duration).toBeCloseTo(wavSeconds(speech.audio)!, 2);
  });

  it('scripted: a queued string is the transcript, a queued failure fails the call, attempts kept', async () => {
    const simulator = new MockProvider({
      replies: ['scripted words', { error: { status: 429, message: 'slow down' } }],
    });
    const scripted = createGateway({ env: {}, mock: simulator, retry: { maxRetries: 0 } });
    const file = { data: new Uint8Array([1, 2, 3, 4]), name: 'a.mp3' };
    const answer = await scripted.createTranscription({ model: 'whisper-1', file });
    expect(answer.text).toBe('scripted words');
    const error = await scripted.createImage({ model: 'gpt-image-1-mini', prompt: 'x' }).catch((thrown) => thrown);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.attempts).toHaveLength(1);
  });
});

describe('simulated media: what a caller may not make it do', () => {
  it('more pixels than it draws in a call is a 400, not a stalled process', async () => {
    const error = await gateway
      .createImage({ model: 'gpt-image-1-mini', prompt: 'x', n: 10, size: '2048x2048' })
      .catch((thrown) => thrown);
    expect(error.status).toBe(400);
    expect(error.message).toContain('megapixels');
  });

  it('malformed bodies are 400s naming the parameter', async () => {
    const cases: Array<[Promise<unknown>, string]> = [
      [gateway.createImage({ model: 'gpt-image-1-mini' } as never), 'prompt'],
      [gateway.createImage({ model: 'gpt-image-1-mini', prompt: 'x', n: 0 }), 'n'],
      [gateway.createImage({ model: 'tts-1', prompt: 'x' }), 'model'],
      [gateway.createSpeech({ model: 'tts-1', input: 'x' } as never), 'voice'],
      [
        gateway.createSpeech({ model: 'tts-1', voice: 'alloy', input: 'x', response_format: 'ogg' as never }),
        'response_format',
      ],
      [gateway.createTranscription({ model: 'whisper-1', file: { data: new Uint8Array() } }), 'file'],
      [gateway.editImage({ model: 'gpt-image-1-mini', prompt: 'x', image: {} as never }), 'image[0]'],
      [gateway.createImage({ model: 'gpt-image-1-mini', prompt: 'x', metadata: 'agent' as never }), 'metadata'],
    ];
    for (const [call, param] of cases) {
      const error = (await call.catch((thrown) => thrown)) as { status: number; param: string };
      expect([error.status, error.param]).toEqual([400, param]);
    }
  });
});

describe('the simulator stands in for each provider', () => {
  it('runs the provider’s images conversion first: its warnings as the provider would give them', async () => {
    const xai = await gateway.createImage({ model: 'grok-imagine-image', prompt: 'x', size: '64x64', style: 'vivid' });
    expect(xai.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'converted_parameter', param: 'size' }),
    );
    expect(xai.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'unsupported_parameter', param: 'style' }),
    );
    const imagen = await gateway.createImage({ model: 'imagen-4.0-generate-001', prompt: 'x', size: '100x50' });
    expect(imagen.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'converted_parameter', param: 'size' }),
    );
    const titan = await gateway.createImage({ model: 'amazon.titan-image-generator-v2:0', prompt: 'x', size: '64x64' });
    expect(titan.switchyard.cost_usd).toBeNull();
    expect(titan.switchyard.warnings).toContainEqual(
      expect.objectContaining({
        code: 'converted_parameter',
        param: 'size',
        message: expect.stringContaining('512x512'),
      }),
    );
    const openai = await gateway.createImage({ model: 'gpt-image-1-mini', prompt: 'x', size: '64x64', quality: 'low' });
    expect(openai.switchyard.warnings.filter((warning) => warning.param === 'size')).toEqual([]);
  });

  it('runs the provider’s speech conversion first: Gemini TTS’s warnings, its format said once', async () => {
    const speech = await gateway.createSpeech({
      model: 'gemini-2.5-flash-preview-tts',
      voice: 'alloy',
      input: 'Hello there.',
      response_format: 'mp3',
      speed: 2,
    });
    expect(speech).toMatchObject({ format: 'wav', content_type: 'audio/wav' });
    const said = speech.switchyard.warnings.map((warning) => [warning.code, warning.param]);
    expect(said).toEqual(
      expect.arrayContaining([
        ['unsupported_parameter', 'speed'],
        ['converted_parameter', 'voice'],
      ]),
    );
    expect(said.filter(([, param]) => param === 'response_format')).toHaveLength(1);
    const custom = await gateway
      .createSpeech({ model: 'gemini-2.5-flash-preview-tts', voice: { id: 'voice_1' }, input: 'x' })
      .catch((e) => e);
    expect(custom).toMatchObject({ status: 400, param: 'voice' });
  });

  it('a provider without the API is a 400 in mock mode too', async () => {
    const error = await gateway.createSpeech({ model: 'anthropic/voice', voice: 'alloy', input: 'x' }).catch((e) => e);
    expect(error.status).toBe(400);
    expect(error.message).toContain('anthropic has no speech API');
  });
});

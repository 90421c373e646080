import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { wavSeconds } from '../../src/internal/wav.ts';
import { speechBill } from '../../src/media/media-cost.ts';
import { startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { SPEECH_MIME_TYPE, SPEECH_RATE, speechPcm } from '../fake-servers/gemini-speech.ts';
import { startTestServer } from '../server/start-test-server.ts';

/** Gemini's TTS models behind `createSpeech`, against the fake Gemini API: PCM in `inlineData`, WAV out. */
const gemini = await startFakeGeminiServer();
afterAll(() => gemini.close());
beforeEach(() => gemini.reset());
const gateway = createGateway({
  env: {},
  providers: { google: { apiKey: 'gemini-test', baseURL: gemini.url } },
  retry: { maxRetries: 0 },
});

describe('speech on Google (Gemini TTS)', () => {
  it('generateContent with AUDIO and the prebuilt voice; the 24 kHz PCM answered as a WAV file', async () => {
    const input = 'Your order has shipped.';
    const speech = await gateway.createSpeech({
      model: 'gemini-2.5-flash-preview-tts',
      voice: 'Kore',
      input,
      response_format: 'wav',
    });
    const sent = gemini.requests.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash-preview-tts:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe('gemini-test');
    expect(sent.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: input }] }],
      generationConfig: {
        responseModalities: ['AUDIO'],
        speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } },
      },
    });
    expect(speech).toMatchObject({ format: 'wav', content_type: 'audio/wav', model: 'gemini-2.5-flash-preview-tts' });
    // The WAV's samples are exactly the PCM Gemini sent, at the rate its media type gave.
    const pcm = speechPcm(input);
    expect(Buffer.from(speech.audio.subarray(44)).equals(pcm)).toBe(true);
    expect(new DataView(speech.audio.buffer, speech.audio.byteOffset).getUint32(24, true)).toBe(SPEECH_RATE);
    expect(wavSeconds(speech.audio)).toBeCloseTo(pcm.length / 2 / SPEECH_RATE, 6);
    // Billed in the tokens Gemini reported; the catalog has no price for the preview models yet: null, flagged.
    expect(speech.switchyard.media).toEqual({
      kind: 'speech',
      modality: 'audio',
      units: { characters: input.length, input_text_tokens: 6, output_audio_tokens: 50 },
    });
    expect(speech.switchyard.cost_usd).toBeNull();
    expect(speech.switchyard.warnings.map((warning) => warning.code)).toContain('price_unknown');
  });

  it('OpenAI’s voice, format and speed: converted or dropped, each warned; an error under strict', async () => {
    const speech = await gateway.createSpeech({
      model: 'gemini-2.5-pro-preview-tts',
      voice: 'onyx',
      input: 'Good evening.',
      response_format: 'mp3',
      speed: 1.5,
      instructions: 'Say it slowly, in a low voice',
    });
    const config = gemini.requests.at(-1)!.body;
    expect(config.generationConfig.speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName).toBe('Algenib');
    expect(config.contents[0].parts).toEqual([{ text: 'Say it slowly, in a low voice: Good evening.' }]);
    expect(speech).toMatchObject({ format: 'wav', content_type: 'audio/wav' });
    expect(speech.switchyard.warnings.map((warning) => [warning.code, warning.param])).toEqual(
      expect.arrayContaining([
        ['unsupported_parameter', 'speed'],
        ['converted_parameter', 'response_format'],
        ['converted_parameter', 'instructions'],
        ['converted_parameter', 'voice'],
      ]),
    );
    const strict = createGateway({
      env: {},
      strict: true,
      providers: { google: { apiKey: 'gemini-test', baseURL: gemini.url } },
      retry: { maxRetries: 0 },
    });
    const refused = await strict
      .createSpeech({ model: 'gemini-2.5-flash-preview-tts', voice: 'Kore', input: 'Hi.', speed: 2 })
      .catch((error) => error);
    expect(refused.status).toBe(400);
    expect(refused.message).toContain('speed');
  });

  it('pcm: the raw samples as Gemini sent them', async () => {
    const speech = await gateway.createSpeech({
      model: 'gemini-2.5-flash-preview-tts',
      voice: 'Puck',
      input: 'Hi there.',
      response_format: 'pcm',
    });
    expect(speech).toMatchObject({ format: 'pcm', content_type: 'audio/pcm' });
    expect(Buffer.from(speech.audio).equals(speechPcm('Hi there.'))).toBe(true);
    expect(speech.switchyard.warnings.map((warning) => warning.code)).not.toContain('converted_parameter');
  });

  it('a custom voice { id } is refused as the caller’s; an answer without audio is the provider’s fault', async () => {
    const custom = await gateway
      .createSpeech({ model: 'gemini-2.5-flash-preview-tts', voice: { id: 'voice_123' }, input: 'Hi.' })
      .catch((error) => error);
    expect(custom).toMatchObject({ status: 400, param: 'voice' });

    gemini.enqueue({ text: 'I would rather not say that.', finishReason: 'OTHER' });
    const silent = await gateway
      .createSpeech({ model: 'gemini-2.5-flash-preview-tts', voice: 'Kore', input: 'Hi.' })
      .catch((error) => error);
    expect(silent.status).toBe(502);
    expect(silent.message).toContain('without an audio part (finish reason OTHER)');
    expect(silent.attempts.at(-1)).toMatchObject({ provider: 'google' });
  });

  it('the rate comes from the media type', async () => {
    gemini.enqueue({
      parts: [{ inlineData: { mimeType: SPEECH_MIME_TYPE.replace('24000', '16000'), data: 'AQACAAMABAA=' } }],
    });
    const speech = await gateway.createSpeech({ model: 'gemini-2.5-flash-preview-tts', voice: 'Kore', input: 'Hi.' });
    expect(new DataView(speech.audio.buffer, speech.audio.byteOffset).getUint32(24, true)).toBe(16_000);
    expect(wavSeconds(speech.audio)).toBeCloseTo(4 / 16_000, 9);
  });
});

describe('speech on Google through serve', () => {
  it('the openai SDK’s audio.speech.create gets the WAV, its facts in the headers and the record', async () => {
    const test = await startTestServer({
      mock: false,
      gateway: { env: {}, providers: { google: { apiKey: 'gemini-test', baseURL: gemini.url } } },
    });
    try {
      const speech = await test.openai().audio.speech.create({
        model: 'gemini-2.5-flash-preview-tts',
        voice: 'alloy',
        input: 'Hello.',
        response_format: 'wav',
      });
      expect(speech.headers.get('content-type')).toBe('audio/wav');
      expect(speech.headers.get('x-switchyard-provider')).toBe('google');
      expect(speech.headers.get('x-switchyard-cost-usd')).toBe('unknown');
      const wav = new Uint8Array(await speech.arrayBuffer());
      expect(Buffer.from(wav.subarray(44)).equals(speechPcm('Hello.'))).toBe(true);
      await test.server.gateway.flush();
      const records = (await test.server.gateway.calls.list({ limit: 10 })).data;
      const record = records.find((call) => call.id === speech.headers.get('x-switchyard-call-id'));
      expect(record?.media?.units).toMatchObject({ characters: 6, output_audio_tokens: 13 });
      expect(record?.warnings?.map((warning) => warning.param)).toContain('voice');
    } finally {
      await test.stop();
    }
  });
});

describe('speech billed in tokens', () => {
  it('text tokens at text_input, audio tokens at output, per 1M; characters where priced per character', () => {
    const tokens = { input_text: 6, output_audio: 50 };
    const bill = speechBill({ tokens: { text_input: 0.5, output: 10 } }, 23, tokens);
    expect(bill.usd?.input).toBeCloseTo((6 * 0.5) / 1e6, 12);
    expect(bill.usd?.output).toBeCloseTo((50 * 10) / 1e6, 12);
    expect(speechBill({ characters: 15 }, 23).usd?.input).toBeCloseTo((23 * 15) / 1e6, 12);
    expect(speechBill(null, 23, tokens).usd).toBeNull();
  });
});

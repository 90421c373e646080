import { describe, expect, it } from 'vitest';
import { createGateway, PermissionDeniedError } from '../../src/index.ts';
import { pngSize } from '../../src/internal/png.ts';
import { pcmToWav } from '../../src/internal/wav.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';

/** The media APIs in process against the fake OpenAI server: wire formats, cost from units, records, fallbacks. */
const server = await useFakeOpenAIServer();
const providers = Object.fromEntries(
  ['openai', 'groq', 'xai', 'together'].map((name) => [name, { apiKey: `key-${name}`, baseURL: server.url }]),
);
const gateway = createGateway({ env: {}, providers, retry: { maxRetries: 0 } });

async function recordOf(callId: string) {
  await gateway.flush();
  return (await gateway.calls.list({ limit: 500 })).data.find((record) => record.id === callId)!;
}

describe('images against the fake OpenAI server', () => {
  it('gpt-image-1-mini: the body as sent, a decodable image, cost from the image tokens reported', async () => {
    const answer = await gateway.createImage({ model: 'gpt-image-1-mini', prompt: 'a lighthouse', quality: 'low' });
    expect(server.requests.at(-1)).toMatchObject({
      path: '/v1/images/generations',
      body: { model: 'gpt-image-1-mini', prompt: 'a lighthouse', quality: 'low' },
    });
    expect(pngSize(Buffer.from(answer.data![0]!.b64_json!, 'base64'))).toEqual({ width: 2, height: 2 });
    // 50 text tokens at $2/1M in, 1056 image tokens at $8/1M out.
    expect(answer.switchyard.cost_usd).toBeCloseTo((50 * 2 + 1056 * 8) / 1e6, 9);
    expect(answer.switchyard).toMatchObject({ provider: 'openai', model: 'gpt-image-1-mini', model_known: true });
    const record = await recordOf(answer.switchyard.call_id);
    expect(record).toMatchObject({ dialect: 'images', status: 'ok', model: 'gpt-image-1-mini' });
    expect(record.cost_usd).toBeGreaterThan(0);
    expect(record.media).toEqual({
      kind: 'image',
      modality: 'image',
      units: { images: 1, input_text_tokens: 50, input_image_tokens: 0, output_tokens: 1056 },
    });
  });

  it('per image by quality and size where no tokens are reported', async () => {
    server.enqueue({ media: { usage: null } });
    const answer = await gateway.createImage({
      model: 'gpt-image-1-mini',
      prompt: 'x',
      n: 2,
      size: '1024x1536',
      quality: 'high',
    });
    expect(answer.switchyard.cost_usd).toBeCloseTo(2 * 0.052, 9);
  });

  it('an answer counting no output tokens for its images is billed per image, never $0', async () => {
    const usage = { input_tokens: 0, input_tokens_details: { text_tokens: 0, image_tokens: 0 }, output_tokens: 0 };
    server.enqueue({ media: { usage: { ...usage, total_tokens: 0 } } });
    const answer = await gateway.createImage({ model: 'gpt-image-1-mini', prompt: 'x', quality: 'low' });
    expect(answer.switchyard.cost_usd).toBeCloseTo(0.005, 9);
  });

  it('a model without a known price: cost null and flagged; an uncatalogued one is called as written', async () => {
    const dalle = await gateway.createImage({ model: 'dall-e-3', prompt: 'x' });
    expect(dalle.switchyard.cost_usd).toBeNull();
    expect(dalle.switchyard.warnings.map((warning) => warning.code)).toContain('price_unknown');
    const unlisted = await gateway.createImage({ model: 'openai/gpt-image-9', prompt: 'x' });
    expect(server.requests.at(-1)!.body.model).toBe('gpt-image-9');
    expect(unlisted.switchyard).toMatchObject({ model_known: false, cost_usd: null });
    expect((await recordOf(unlisted.switchyard.call_id)).cost_usd).toBeNull();
  });

  it('editImage: multipart with the image file and prompt', async () => {
    const image = { data: new Uint8Array([137, 80, 78, 71, 1, 2, 3]), name: 'photo.png', type: 'image/png' };
    const answer = await gateway.editImage({ model: 'gpt-image-1-mini', prompt: 'add a hat', image });
    const sent = server.requests.at(-1)!;
    expect(sent.path).toBe('/v1/images/edits');
    expect(sent.body).toMatchObject({
      model: 'gpt-image-1-mini',
      prompt: 'add a hat',
      image: { name: 'photo.png', type: 'image/png', size: 7 },
    });
    expect(answer.switchyard.cost_usd).toBeCloseTo((50 * 2 + 300 * 2.5 + 1056 * 8) / 1e6, 9);
  });

  it('xAI: size as aspect_ratio and resolution; a quality it lacks dropped with a warning, strict: a 400', async () => {
    const answer = await gateway.createImage({
      model: 'grok-imagine-image',
      prompt: 'x',
      size: '1024x1536',
      quality: 'hd',
      response_format: 'b64_json',
    });
    expect(server.requests.at(-1)!.body).toEqual({
      model: 'grok-imagine-image',
      prompt: 'x',
      aspect_ratio: '2:3',
      resolution: '2k',
      response_format: 'b64_json',
    });
    expect(answer.data![0]!.b64_json).toBeTruthy();
    expect(answer.switchyard).toMatchObject({ provider: 'xai', model: 'grok-imagine-image', cost_usd: null });
    expect(answer.switchyard.warnings.map((warning) => [warning.code, warning.param])).toEqual(
      expect.arrayContaining([
        ['converted_parameter', 'size'],
        ['unsupported_parameter', 'quality'],
        ['price_unknown', undefined],
      ]),
    );
    const strict = createGateway({ env: {}, providers, strict: true, retry: { maxRetries: 0 } });
    const error = await strict
      .createImage({ model: 'xai/grok-imagine-image', prompt: 'x', quality: 'hd' })
      .catch((e) => e);
    expect(error.status).toBe(400);
  });

  it('Together’s FLUX.1 [schnell] by its catalog id (a name with a slash): b64_json asked as base64', async () => {
    const answer = await gateway.createImage({
      model: 'black-forest-labs/FLUX.1-schnell',
      prompt: 'x',
      size: '768x512',
      response_format: 'b64_json',
    });
    expect(server.requests.at(-1)).toMatchObject({
      path: '/v1/images/generations',
      body: { model: 'black-forest-labs/FLUX.1-schnell', width: 768, height: 512, response_format: 'base64' },
    });
    expect(pngSize(Buffer.from(answer.data![0]!.b64_json!, 'base64'))).toEqual({ width: 2, height: 2 });
    expect(answer.switchyard).toMatchObject({ provider: 'together', model_known: true, cost_usd: null });
  });

  it('a failing image provider falls back to the next model; the record shows both attempts', async () => {
    server.enqueue({ error: { status: 500, message: 'upstream broke', type: 'server_error' } });
    const answer = await gateway.createImage({
      model: 'gpt-image-1-mini',
      prompt: 'x',
      fallbacks: ['together/black-forest-labs/FLUX.1-schnell'],
      size: '512x512',
    });
    expect(answer.switchyard.provider).toBe('together');
    expect(server.requests.at(-1)!.body).toMatchObject({ width: 512, height: 512 });
    const record = await recordOf(answer.switchyard.call_id);
    expect(record.attempts.map((attempt) => [attempt.provider, attempt.outcome])).toEqual([
      ['openai', 'server_error'],
      ['together', 'ok'],
    ]);
  });

  it('the answer carries the answering attempt’s warnings, not those of a provider that failed', async () => {
    server.enqueue({ error: { status: 500, message: 'upstream broke', type: 'server_error' } });
    const answer = await gateway.createImage({
      model: 'xai/grok-2-image',
      prompt: 'x',
      size: '1024x1024',
      fallbacks: ['gpt-image-1-mini'],
    });
    expect(answer.switchyard.provider).toBe('openai');
    expect(answer.switchyard.warnings.filter((warning) => warning.code === 'unsupported_parameter')).toEqual([]);
  });

  it('a retryable failure is retried on the same provider; the attempts say so', async () => {
    const retrying = createGateway({ env: {}, providers, retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 1 } });
    server.enqueue({ error: { status: 429, message: 'slow down', type: 'rate_limit_error' } });
    const answer = await retrying.createSpeech({ model: 'tts-1', voice: 'alloy', input: 'again' });
    expect(answer.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['rate_limited', 'ok']);
  });

  it('a caller whose models exclude the image model gets a 403', async () => {
    const error = await gateway
      .createImage({ model: 'gpt-image-1-mini', prompt: 'x' }, { access: { models: ['gpt-4o-mini'] } })
      .catch((thrown) => thrown);
    expect(error).toBeInstanceOf(PermissionDeniedError);
  });
});

describe('speech and transcription against the fake OpenAI server', () => {
  it('createSpeech: the audio bytes and content type; cost per 1M characters', async () => {
    const input = 'Twenty characters!!!';
    const answer = await gateway.createSpeech({ model: 'tts-1', voice: 'alloy', input });
    expect(server.requests.at(-1)).toMatchObject({
      path: '/v1/audio/speech',
      body: { model: 'tts-1', voice: 'alloy', input, response_format: 'mp3' },
    });
    expect(answer.content_type).toBe('audio/mpeg');
    expect(Buffer.from(answer.audio).toString()).toBe(`fake mp3 audio of "${input}"`);
    expect(answer.switchyard.cost_usd).toBeCloseTo((20 * 15) / 1e6, 12);
    const record = await recordOf(answer.switchyard.call_id);
    expect(record.media).toEqual({ kind: 'speech', modality: 'audio', units: { characters: 20 } });
    expect(answer.switchyard.media).toEqual(record.media);
  });

  it('whisper-1: multipart upload, cost by the seconds reported; text format answered as text', async () => {
    const file = { data: new Uint8Array(1000), name: 'talk.mp3', type: 'audio/mpeg' };
    const json = await gateway.createTranscription({ model: 'whisper-1', file, language: 'en' });
    expect(server.requests.at(-1)!.body).toMatchObject({
      model: 'whisper-1',
      language: 'en',
      response_format: 'json',
      file: { name: 'talk.mp3', size: 1000 },
    });
    expect(json.text).toBe('fake transcript of 1000 bytes');
    expect(json.switchyard.cost_usd).toBeCloseTo((42 / 60) * 0.006, 9);
    const text = await gateway.createTranscription({ model: 'whisper-1', file, response_format: 'text' });
    expect(text.body).toBe('fake transcript of 1000 bytes\n');
    expect(text.text).toBe(text.body);
    // Asked as text, the provider is asked for json: the text with the length a bill needs (a text answer says
    // none), answered as text and billed exactly.
    expect(server.requests.at(-1)!.body).toMatchObject({ response_format: 'json' });
    expect(text.switchyard.cost_usd).toBeCloseTo((42 / 60) * 0.006, 9);
    // An answer that says no length: billed (and charged to the budgets) at the length the hold assumed, 1000 bytes
    // at 16 kbit/s, never $0.
    server.enqueue({ media: { usage: null } });
    const unsaid = await gateway.createTranscription({ model: 'whisper-1', file });
    expect(unsaid.switchyard.cost_usd).toBeCloseTo((Math.ceil(1000 / 2000) / 60) * 0.006, 9);
    expect(unsaid.switchyard.warnings).toContainEqual(expect.objectContaining({ code: 'cost_estimated' }));
  });

  it('a WAV header claiming an impossible byte rate is not believed for the bill', async () => {
    // 2 MB of audio whose header claims 1 GB a second (0.002 s as read): at most 96 kHz × 32 bits × 2 channels.
    const wav = pcmToWav(new Uint8Array(2_000_000), 16_000);
    new DataView(wav.buffer).setUint32(28, 1_000_000_000, true);
    server.enqueue({ media: { usage: null } });
    const answer = await gateway.createTranscription({
      model: 'whisper-1',
      file: { data: wav, name: 'a.wav' },
      response_format: 'text',
    });
    expect(answer.switchyard.cost_usd).toBeCloseTo((Math.ceil(2_000_000 / 768_000) / 60) * 0.006, 9);
    // A data size of 0 (a stream's header) is read as the bytes there are, as a decoder reads it.
    const unsized = pcmToWav(new Uint8Array(2_000_000), 16_000);
    new DataView(unsized.buffer).setUint32(40, 0, true);
    server.enqueue({ media: { usage: null } });
    const read = await gateway.createTranscription({
      model: 'whisper-1',
      file: { data: unsized, name: 'b.wav' },
      response_format: 'text',
    });
    expect(read.switchyard.cost_usd).toBeCloseTo((Math.ceil(2_000_000 / 32_000) / 60) * 0.006, 9);
  });

  it('gpt-4o-transcribe: cost from the audio and text tokens reported', async () => {
    const file = { data: new Uint8Array(10), name: 'a.wav' };
    const answer = await gateway.createTranscription({ model: 'gpt-4o-transcribe', file });
    expect(answer.switchyard.cost_usd).toBeCloseTo((100 * 2.5 + 20 * 2.5 + 30 * 10) / 1e6, 12);
    expect((await recordOf(answer.switchyard.call_id)).media?.units).toEqual({
      input_audio_tokens: 100,
      input_text_tokens: 20,
      output_tokens: 30,
    });
  });

  it('gpt-4o-transcribe under a budget: held at its most (16,000 tokens in, 2,000 out) while it runs', async () => {
    // The most one call costs: 16,000 × $2.5 + 2,000 × $10 per 1M = $0.06. A call is admitted while spent + held is
    // under the budget: the first holds $0.06 of $0.05, so a second sent meanwhile is refused (not both let through).
    const budgeted = createGateway({
      env: {},
      providers,
      retry: { maxRetries: 0 },
      budgets: { rules: [{ scope: 'agent', usd: 0.05, window: 'day' }] },
    });
    const file = { data: new Uint8Array(10), name: 'a.wav' };
    server.enqueue({ delayMs: 200 }, { delayMs: 200 });
    const both = await Promise.allSettled(
      [0, 1].map(() =>
        budgeted.createTranscription({ model: 'gpt-4o-transcribe', file, metadata: { agent_id: 'scribe' } }),
      ),
    );
    const passed = both.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    expect(passed).toHaveLength(1);
    expect(passed[0]!.switchyard.warnings ?? []).not.toContainEqual(
      expect.objectContaining({ code: 'budget_estimate_unknown' }),
    );
    expect(both.find((result) => result.status === 'rejected')).toMatchObject({
      reason: expect.objectContaining({ status: 402 }),
    });
    // The hold is given back for what the call cost: the next one passes.
    const next = await budgeted.createTranscription(
      { model: 'gpt-4o-transcribe', file },
      { metadata: { agent_id: 'scribe' } },
    );
    expect(next.switchyard.cost_usd).toBeCloseTo((100 * 2.5 + 20 * 2.5 + 30 * 10) / 1e6, 12);
    await budgeted.close();
  });

  it('Groq transcribes in OpenAI shape; its price is not known', async () => {
    const file = { data: new Uint8Array(10), name: 'a.wav' };
    const answer = await gateway.createTranscription({ model: 'whisper-large-v3', file });
    expect(answer.switchyard.provider).toBe('groq');
    expect(answer.switchyard.cost_usd).toBeNull();
  });
});

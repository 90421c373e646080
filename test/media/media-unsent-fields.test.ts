import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * A media request's fields no API here takes are dropped with a warning (an error under strict), never ignored
 * unsaid; a stream asked of speech or a transcription is refused; a multipart body's other fields reach the API as
 * the JSON body's would.
 */
const fake = await useFakeOpenAIServer();
const providers = { openai: { apiKey: 'sk-fake', baseURL: fake.url } };
const gateway = createGateway({ env: {}, providers, retry: { maxRetries: 0 } });
const strict = createGateway({ env: {}, providers, retry: { maxRetries: 0 }, strict: true });
const audio = { data: new Uint8Array(1000), name: 'talk.mp3', type: 'audio/mpeg' };
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer({ mock: false, gateway: { env: {}, providers, retry: { maxRetries: 0 } } });
});
afterAll(async () => {
  await test.stop();
  await gateway.close();
  await strict.close();
});

/** A multipart transcription request as a client sends it, with `server`'s key. */
const transcribe = (form: FormData, server: TestServer = test) =>
  fetch(`${server.url}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.key}` },
    body: form,
  });

const warningsOf = (answer: { switchyard: { warnings: Array<{ code: string; param?: string | null }> } }) =>
  answer.switchyard.warnings.map((warning) => [warning.code, warning.param]);

describe('in process', () => {
  it('a transcription field no API here sends is warned and not sent; an error under strict', async () => {
    const answer = await gateway.createTranscription({
      model: 'whisper-1',
      file: audio,
      chunking_strategy: 'auto',
    } as never);
    expect(warningsOf(answer)).toContainEqual(['unsupported_parameter', 'chunking_strategy']);
    expect(fake.requests.at(-1)!.body).not.toHaveProperty('chunking_strategy');
    const refused = await strict
      .createTranscription({ model: 'whisper-1', file: audio, chunking_strategy: 'auto' } as never)
      .catch((thrown: unknown) => thrown);
    expect(refused).toMatchObject({ status: 400, param: 'chunking_strategy' });
  });

  it('a speech field no API here sends is warned; stream_format sse refused, audio taken', async () => {
    const answer = await gateway.createSpeech({ model: 'tts-1', voice: 'alloy', input: 'Hi.', pitch: 2 } as never);
    expect(warningsOf(answer)).toContainEqual(['unsupported_parameter', 'pitch']);
    expect(fake.requests.at(-1)!.body).not.toHaveProperty('pitch');
    const before = fake.requests.length;
    const sse = await gateway
      .createSpeech({ model: 'tts-1', voice: 'alloy', input: 'Hi.', stream_format: 'sse' } as never)
      .catch((thrown: unknown) => thrown);
    expect(sse).toMatchObject({ status: 400, param: 'stream_format' });
    expect(fake.requests.length).toBe(before);
    const plain = await gateway.createSpeech({
      model: 'tts-1',
      voice: 'alloy',
      input: 'Hi.',
      stream_format: 'audio',
    } as never);
    expect(plain.switchyard.warnings).toEqual([]);
  });

  it('a transcription asked as a stream is refused before any provider; one granularity is a list', async () => {
    const before = fake.requests.length;
    const streamed = await gateway
      .createTranscription({ model: 'whisper-1', file: audio, stream: true } as never)
      .catch((thrown: unknown) => thrown);
    expect(streamed).toMatchObject({ status: 400, param: 'stream' });
    expect(fake.requests.length).toBe(before);
    await gateway.createTranscription({
      model: 'whisper-1',
      file: audio,
      response_format: 'verbose_json',
      timestamp_granularities: 'word',
    } as never);
    expect(fake.requests.at(-1)!.body).toMatchObject({ timestamp_granularities: ['word'] });
    const wrong = await gateway
      .createTranscription({ model: 'whisper-1', file: audio, timestamp_granularities: ['letter'] } as never)
      .catch((thrown: unknown) => thrown);
    expect(wrong).toMatchObject({ status: 400, param: 'timestamp_granularities' });
  });
});

describe('through serve (multipart)', () => {
  it('a transcription’s other fields reach the API, warned in the answer; stream true is a 400', async () => {
    const file = await toFile(Buffer.alloc(500), 'memo.m4a', { type: 'audio/mp4' });
    const answer = await test
      .openai()
      .audio.transcriptions.create({ model: 'whisper-1', file, include: ['logprobs'], chunking_strategy: 'auto' });
    const facts = (answer as unknown as { switchyard: { warnings: Array<{ param: string }> } }).switchyard;
    expect(facts.warnings.map((warning) => warning.param).sort()).toEqual(['chunking_strategy', 'include']);
    const streamed = await test
      .openai()
      .audio.transcriptions.create({ model: 'whisper-1', file, stream: true })
      .catch((thrown: unknown) => thrown);
    expect(streamed).toMatchObject({ status: 400 });
  });

  it('an image edit’s other fields reach the provider as the JSON body’s would', async () => {
    const image = await toFile(Buffer.from('png bytes'), 'kite.png', { type: 'image/png' });
    await test.openai().images.edit({
      model: 'gpt-image-1-mini',
      prompt: 'blue',
      image,
      background: 'transparent',
      moderation: 'low',
    } as never);
    expect(fake.requests.at(-1)!.body).toMatchObject({ background: 'transparent', moderation: 'low' });
  });

  it('a file in a field the API takes no file in is a 400 naming it', async () => {
    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('file', new Blob([new Uint8Array(10)]), 'a.wav');
    form.append('attachment', new Blob([new Uint8Array(10)]), 'b.wav');
    const response = await transcribe(form);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { param: 'attachment' } });
  });
});

describe('a transcription prompt sent as a list', () => {
  it('is a 400, never a text the guard cannot mask', async () => {
    const masked = await startTestServer({
      mock: false,
      gateway: { env: {}, providers, retry: { maxRetries: 0 }, sensitiveData: 'mask' },
    });
    try {
      const form = new FormData();
      form.append('model', 'whisper-1');
      form.append('file', new Blob([new Uint8Array(10)]), 'a.wav');
      form.append('prompt[]', 'call me at alice@example.com');
      const before = fake.requests.length;
      const response = await transcribe(form, masked);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { param: 'prompt' } });
      expect(fake.requests.length).toBe(before);
      // `user` stands in the metadata: not dropped.
      const answer = await gateway.createTranscription({ model: 'whisper-1', file: audio, user: 'u-1' } as never);
      expect(answer.switchyard.warnings.map((warning) => warning.param)).not.toContain('user');
    } finally {
      await masked.stop();
    }
  });
});

describe('metadata in a multipart body', () => {
  it('as the Python SDK sends a dict (metadata[agent_id]) attributes the call, as the JSON field does', async () => {
    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('file', new Blob([new Uint8Array(10)]), 'a.wav');
    form.append('metadata[agent_id]', 'scribe');
    const response = await transcribe(form);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { switchyard: { call_id: string; warnings: unknown[] } };
    expect(answer.switchyard.warnings).toEqual([]);
    expect(fake.requests.at(-1)!.body).not.toHaveProperty('metadata[agent_id]');
    await test.server.gateway.flush();
    const record = await test.server.gateway.calls.get!(answer.switchyard.call_id);
    expect(record?.agent_id).toBe('scribe');
  });
});

describe('a multipart field named __proto__', () => {
  it('is a field like another (warned as one no API takes), never the form’s prototype', async () => {
    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('file', new Blob([new Uint8Array(10)]), 'a.wav');
    form.append('__proto__', 'x');
    const response = await transcribe(form);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { switchyard: { warnings: Array<{ param?: string }> } };
    expect(answer.switchyard.warnings.map((warning) => warning.param)).toContain('__proto__');
  });
});

import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * `switchyard serve` in front of the fake OpenAI server, driven by the openai SDK: each media API reaches the
 * provider's wire format, and a priced call costs more than $0 in its answer and its record.
 */
const fake = await useFakeOpenAIServer();
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer({
    mock: false,
    gateway: { env: {}, providers: { openai: { apiKey: 'sk-fake', baseURL: fake.url } }, retry: { maxRetries: 0 } },
  });
});
afterAll(() => test.stop());

async function recordedCost(callId: string | null | undefined) {
  await test.server.gateway.flush();
  const records = (await test.server.gateway.calls.list({ limit: 100 })).data;
  return records.find((record) => record.id === callId)?.cost_usd;
}

describe('serve → the fake OpenAI server', () => {
  it('images.generate and images.edit', async () => {
    const generated = await test.openai().images.generate({ model: 'gpt-image-1-mini', prompt: 'a kite' });
    const facts = (generated as unknown as { switchyard: { call_id: string; cost_usd: number } }).switchyard;
    expect(fake.requests.at(-1)!.path).toBe('/v1/images/generations');
    expect(facts.cost_usd).toBeGreaterThan(0);
    expect(await recordedCost(facts.call_id)).toBe(facts.cost_usd);

    const image = await toFile(Buffer.from('png bytes'), 'kite.png', { type: 'image/png' });
    const edited = await test.openai().images.edit({ model: 'gpt-image-1-mini', prompt: 'blue', image });
    expect(fake.requests.at(-1)!.body).toMatchObject({ prompt: 'blue', image: { name: 'kite.png', size: 9 } });
    expect((edited as unknown as { switchyard: { cost_usd: number } }).switchyard.cost_usd).toBeGreaterThan(0);
  });

  it('audio.speech.create: the provider’s bytes and content type', async () => {
    const speech = await test.openai().audio.speech.create({ model: 'tts-1', voice: 'nova', input: 'Hello.' });
    expect(speech.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await speech.arrayBuffer()).toString()).toBe('fake mp3 audio of "Hello."');
    const cost = Number(speech.headers.get('x-switchyard-cost-usd'));
    expect(cost).toBeCloseTo((6 * 15) / 1e6, 12);
    expect(await recordedCost(speech.headers.get('x-switchyard-call-id'))).toBe(cost);
  });

  it('audio.transcriptions.create: the upload reaches the provider as multipart', async () => {
    const file = await toFile(Buffer.alloc(500), 'memo.m4a', { type: 'audio/mp4' });
    const transcript = await test.openai().audio.transcriptions.create({ model: 'whisper-1', file, language: 'de' });
    expect(fake.requests.at(-1)!.body).toMatchObject({ model: 'whisper-1', language: 'de', file: { size: 500 } });
    expect(transcript.text).toBe('fake transcript of 500 bytes');
    const facts = (transcript as unknown as { switchyard: { call_id: string; cost_usd: number } }).switchyard;
    expect(facts.cost_usd).toBeCloseTo((42 / 60) * 0.006, 9);
    expect(await recordedCost(facts.call_id)).toBe(facts.cost_usd);
  });

  it('a provider error reaches the SDK with its status, the attempt chain in the record', async () => {
    fake.enqueue({ error: { status: 400, message: 'Your prompt was rejected', code: 'moderation_blocked' } });
    const error = await test
      .openai()
      .images.generate({ model: 'gpt-image-1-mini', prompt: 'x' })
      .catch((e) => e);
    expect(error.status).toBe(400);
    expect(error.message).toContain('Your prompt was rejected');
  });
});

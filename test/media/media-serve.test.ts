import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyGrant } from '../../src/access/scopes.ts';
import { pngSize } from '../../src/internal/png.ts';
import { wavSeconds } from '../../src/internal/wav.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * The media APIs over `switchyard serve --mock`, driven by the official openai SDK unchanged: images.generate,
 * images.edit, audio.speech.create, audio.transcriptions.create; the key's models, budgets, records, upload limit.
 */
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer({
    maxUploadBytes: 64 * 1024,
    gateway: { budgets: { rules: [{ scope: 'agent', usd: 0.01, window: 'day' }] } },
  });
});
afterAll(() => test.stop());

const grant = (models: string[]): KeyGrant => ({
  scopes: ['chat'],
  allowed_agents: null,
  allowed_models: models,
  expires_at: null,
});

async function recordOf(callId: string) {
  await test.server.gateway.flush();
  return (await test.server.gateway.calls.list({ limit: 500 })).data.find((record) => record.id === callId);
}

describe('serve: the media APIs through the openai SDK', () => {
  it('images.generate: a PNG of the size asked, the facts beside it, a record with its modality', async () => {
    const answer = await test
      .openai()
      .images.generate({ model: 'gpt-image-1-mini', prompt: 'a kite', size: '1024x1024', quality: 'low' });
    const png = Buffer.from(answer.data![0]!.b64_json!, 'base64');
    expect(pngSize(png)).toEqual({ width: 1024, height: 1024 });
    const facts = (answer as unknown as { switchyard: { call_id: string; cost_usd: number } }).switchyard;
    expect(facts.cost_usd).toBeCloseTo(0.005, 9);
    const record = await recordOf(facts.call_id);
    expect(record).toMatchObject({ dialect: 'images', status: 'ok', media: { kind: 'image', units: { images: 1 } } });
    expect(record!.cost_usd).toBeGreaterThan(0);
  });

  it('images.edit: multipart image upload', async () => {
    const image = await toFile(Buffer.from('not really a png'), 'photo.png', { type: 'image/png' });
    const answer = await test
      .openai()
      .images.edit({ model: 'gpt-image-1-mini', prompt: 'add a hat', image, size: '256x256' });
    expect(pngSize(Buffer.from(answer.data![0]!.b64_json!, 'base64'))).toEqual({ width: 256, height: 256 });
  });

  it('audio.speech.create: the audio bytes with their content type and the call id header', async () => {
    const response = await test
      .openai()
      .audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello from serve.', response_format: 'wav' });
    expect(response.headers.get('content-type')).toBe('audio/wav');
    expect(response.headers.get('x-switchyard-call-id')).toBeTruthy();
    expect(Number(response.headers.get('x-switchyard-cost-usd'))).toBeGreaterThan(0);
    const audio = new Uint8Array(await response.arrayBuffer());
    expect(wavSeconds(audio)).toBeGreaterThan(1);
  });

  it('audio.transcriptions.create: json and text formats', async () => {
    const speech = await test
      .openai()
      .audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Short.', response_format: 'wav' });
    const audio = Buffer.from(await speech.arrayBuffer());
    const file = await toFile(audio, 'speech.wav', { type: 'audio/wav' });
    const json = await test.openai().audio.transcriptions.create({ model: 'whisper-1', file });
    expect(json.text).toMatch(/^Simulated transcript of 0\.\d+ seconds/);
    const again = await toFile(audio, 'speech.wav', { type: 'audio/wav' });
    const text = await test
      .openai()
      .audio.transcriptions.create({ model: 'whisper-1', file: again, response_format: 'text' });
    expect(text).toBe(`${json.text}\n`);
  });

  it('an upload past --max-upload-bytes is a 413', async () => {
    const file = await toFile(Buffer.alloc(65 * 1024), 'big.wav', { type: 'audio/wav' });
    const error = await test
      .openai()
      .audio.transcriptions.create({ model: 'whisper-1', file })
      .catch((thrown) => thrown);
    expect(error.status).toBe(413);
  });

  it('two keys, each limited to one agent and one model: neither paints as the other nor reads its calls', async () => {
    const keyOf = async (agent: string) =>
      (
        await test.server.keys.create(agent, {
          grant: {
            scopes: ['chat', 'calls:read'],
            allowed_agents: [agent],
            allowed_models: ['gpt-image-1-mini'],
            expires_at: null,
          },
        })
      ).key;
    const [blue, red] = [await keyOf('blue-painter'), await keyOf('red-painter')];
    const paint = (key: string, agent: string) =>
      test.openai(key).images.generate({
        model: 'gpt-image-1-mini',
        prompt: 'x',
        size: '16x16',
        metadata: { agent_id: agent },
      } as never);
    const mine = await paint(blue, 'blue-painter');
    const callId = (mine as unknown as { switchyard: { call_id: string } }).switchyard.call_id;
    const crossed = await paint(blue, 'red-painter').catch((e) => e);
    expect(crossed).toMatchObject({ status: 403, message: expect.stringContaining('red-painter') });
    const other = await test
      .openai(red)
      .images.generate({ model: 'gpt-image-1', prompt: 'x', metadata: { agent_id: 'red-painter' } } as never)
      .catch((e) => e);
    expect(other.status).toBe(403);
    await test.server.gateway.flush();
    const read = (key: string) =>
      fetch(`${test.url}/v1/calls/${callId}`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
    expect(await read(blue)).toBe(200);
    expect(await read(red)).toBe(404);
  });

  it('a key whose models exclude the image model gets 403', async () => {
    const { key } = await test.server.keys.create('chat only', { grant: grant(['gpt-4o-mini']) });
    const error = await test
      .openai(key)
      .images.generate({ model: 'gpt-image-1-mini', prompt: 'x' })
      .catch((e) => e);
    expect(error.status).toBe(403);
    const { key: allowed } = await test.server.keys.create('painter', { grant: grant(['gpt-image-1-mini']) });
    const answer = await test
      .openai(allowed)
      .images.generate({ model: 'gpt-image-1-mini', prompt: 'x', size: '16x16' });
    expect(answer.data).toHaveLength(1);
  });

  it('a budget one image exceeds stops the next', async () => {
    const painter = { metadata: { agent_id: 'budgeted-painter' } };
    const ask = () =>
      test.openai().images.generate(
        { model: 'gpt-image-1-mini', prompt: 'x', size: '1024x1024', quality: 'high' },
        {
          body: { model: 'gpt-image-1-mini', prompt: 'x', size: '1024x1024', quality: 'high', ...painter },
        },
      );
    await ask();
    const error = await ask().catch((thrown) => thrown);
    expect(error.status).toBe(402);
    expect(error.message).toContain('budget');
  });
});

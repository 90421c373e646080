import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemorySink } from '../../src/entries/stores.ts';
import { createGateway, PermissionDeniedError, SwitchyardError } from '../../src/index.ts';
import { RecordJournal } from '../../src/records/index.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';

/**
 * Media calls under the same record and sensitive-data rules as completions: the record on disk before the answer
 * leaves, a refused call's record masked, every text the provider is sent guarded, and a request's own mode obeyed.
 */
const server = await useFakeOpenAIServer();
const providers = { openai: { apiKey: 'key-openai', baseURL: server.url } };
const dir = mkdtempSync(join(tmpdir(), 'switchyard-media-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const card = '4111 1111 1111 1111';

function journaledGateway(sensitiveData?: 'mask' | 'block') {
  const sink = new MemorySink();
  const journal = new RecordJournal({ dir, sinks: [sink], onError: () => {} });
  const records = { sinks: [sink], journal, batchSize: 1000, flushIntervalMs: 600_000 };
  return createGateway({
    env: {},
    providers,
    retry: { maxRetries: 0 },
    records,
    ...(sensitiveData ? { sensitiveData } : {}),
  });
}
const journaled = () =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .join('');

describe('a media call’s record', () => {
  it('is on disk before the answer leaves, and before a refusal is thrown', async () => {
    const gateway = journaledGateway();
    const answer = await gateway.createSpeech({ model: 'tts-1', voice: 'alloy', input: 'hello' });
    expect(journaled()).toContain(answer.switchyard.call_id);
    const refused = await gateway
      .createImage({ model: 'gpt-image-1-mini', prompt: 'x' }, { access: { models: ['gpt-4o-mini'] } })
      .catch((error: SwitchyardError) => error);
    expect(refused).toBeInstanceOf(PermissionDeniedError);
    expect(journaled()).toContain((refused as SwitchyardError).callId);
    await gateway.close();
  });

  it('of a call refused before any provider (a model the key may not use) keeps the prompt masked', async () => {
    const gateway = journaledGateway('block');
    const refused = await gateway
      .createImage({ model: 'dall-e-3', prompt: `card ${card}` }, { access: { models: ['gpt-image-1-mini'] } })
      .catch((error: SwitchyardError) => error);
    expect(refused).toBeInstanceOf(SwitchyardError);
    await gateway.flush();
    const record = (await gateway.calls.list({ limit: 10 })).data.find(
      (each) => each.id === (refused as SwitchyardError).callId,
    );
    expect(JSON.stringify(record)).not.toContain(card);
    await gateway.close();
  });
});

describe('the sensitive-data guard on media', () => {
  it('masks a speech call’s instructions as its input', async () => {
    const gateway = journaledGateway('mask');
    await gateway.createSpeech({
      model: 'gpt-4o-mini-tts',
      voice: 'alloy',
      input: 'hi',
      instructions: 'Read it to ann@example.com',
    });
    expect(JSON.stringify(server.requests.at(-1)!.body)).not.toContain('ann@example.com');
    await gateway.close();
  });

  it('obeys a request’s own sensitive_data, and does not send it to the provider', async () => {
    const gateway = journaledGateway();
    const error = await gateway
      .createImage({ model: 'gpt-image-1-mini', prompt: `card ${card}`, sensitive_data: 'block' } as never)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ status: 400 });
    await gateway.createImage({ model: 'gpt-image-1-mini', prompt: `card ${card}`, sensitive_data: 'mask' } as never);
    expect(JSON.stringify(server.requests.at(-1)!.body)).not.toContain(card);
    expect(server.requests.at(-1)!.body).not.toHaveProperty('sensitive_data');
    await gateway.close();
  });
});

describe('an image request asking for a stream', () => {
  it('is refused before any provider draws (and bills) images this gateway cannot read', async () => {
    const gateway = journaledGateway();
    const before = server.requests.length;
    for (const asked of [{ stream: true }, { partial_images: 2 }]) {
      const error = await gateway
        .createImage({ model: 'gpt-image-1', prompt: 'x', ...asked } as never)
        .catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ status: 400, param: Object.keys(asked)[0] });
    }
    expect(server.requests.length).toBe(before);
    await gateway.close();
  });
});

describe('a media call’s metadata', () => {
  it('is refused unless each value is a string, as a chat call’s is', async () => {
    const gateway = journaledGateway();
    const error = await gateway
      .createImage({ model: 'gpt-image-1-mini', prompt: 'x', metadata: { agent_id: {} } } as never)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ status: 400, param: 'metadata.agent_id' });
    await gateway.close();
  });
});

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { testCatalog } from '../helpers/test-catalog.ts';

/**
 * The `openai` SDK reads `OPENAI_ORG_ID` and `OPENAI_PROJECT_ID` from the environment and sends them as headers.
 * They are OpenAI's: the other providers of its family (Groq, Mistral, OpenRouter, …) run on the same SDK and must
 * not receive them.
 */
const seen: Array<Record<string, unknown>> = [];
const server = createServer(async (request, response) => {
  for await (const _ of request);
  seen.push(request.headers);
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_760_000_000,
      model: 'some-model',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
    }),
  );
});
let endpoint = '';
const OPENAI_VARIABLES = { OPENAI_ORG_ID: 'org-only-for-openai', OPENAI_PROJECT_ID: 'proj-only-for-openai' };
const saved = Object.fromEntries(Object.keys(OPENAI_VARIABLES).map((name) => [name, process.env[name]]));
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  Object.assign(process.env, OPENAI_VARIABLES);
});
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const hello = [{ role: 'user' as const, content: 'hi' }];
const headersOfCallTo = async (provider: string) => {
  const gateway = createGateway({
    catalog: testCatalog,
    env: {},
    providers: { [provider]: { apiKey: 'k', baseURL: endpoint } },
  });
  await gateway.createCompletion({ model: `${provider}/some-model`, messages: hello });
  return seen.at(-1)!;
};

describe('OPENAI_ORG_ID and OPENAI_PROJECT_ID in the environment', () => {
  it.each(['groq', 'mistral', 'openrouter', 'together'])('are not sent to %s', async (provider) => {
    const headers = await headersOfCallTo(provider);
    expect(headers['openai-organization']).toBeUndefined();
    expect(headers['openai-project']).toBeUndefined();
  });

  it('are sent to OpenAI, as its SDK does', async () => {
    const headers = await headersOfCallTo('openai');
    expect(headers['openai-organization']).toBe('org-only-for-openai');
    expect(headers['openai-project']).toBe('proj-only-for-openai');
  });
});

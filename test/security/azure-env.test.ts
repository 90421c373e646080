import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { testCatalog } from '../helpers/test-catalog.ts';
import { api, jsonOf, startTestServer } from '../server/start-test-server.ts';

/**
 * Azure with the OpenAI SDK's own variables set in the environment: `OPENAI_BASE_URL` made every
 * Azure attempt throw "baseURL and endpoint are mutually exclusive" (a raw error in process, a 500 through serve),
 * and `OPENAI_ORG_ID` / `OPENAI_PROJECT_ID` would have gone to Azure as headers. Azure is configured by `AZURE_*` and
 * the gateway's options only.
 */
const seen: Array<{ url: string; headers: Record<string, unknown> }> = [];
const server = createServer(async (request, response) => {
  for await (const _ of request);
  seen.push({ url: request.url!, headers: request.headers });
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      id: 'chatcmpl-az',
      object: 'chat.completion',
      created: 1_760_000_000,
      model: 'gpt-4o-2024-11-20',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from Azure' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
    }),
  );
});
let endpoint = '';
const OPENAI_VARIABLES = {
  // A port nothing listens on: a request sent there fails.
  OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
  OPENAI_ORG_ID: 'org-not-for-azure',
  OPENAI_PROJECT_ID: 'proj-not-for-azure',
};
const saved = Object.fromEntries(Object.keys(OPENAI_VARIABLES).map((name) => [name, process.env[name]]));
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
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

describe('Azure with OPENAI_BASE_URL, OPENAI_ORG_ID and OPENAI_PROJECT_ID set', () => {
  it('calls the Azure endpoint, without the OpenAI organization or project headers', async () => {
    const gateway = createGateway({
      catalog: testCatalog,
      env: { AZURE_API_KEY: 'az-key', AZURE_BASE_URL: endpoint },
    });
    const response = await gateway.createCompletion({ model: 'azure/gpt-4o-latest', messages: hello });
    expect(response.choices[0]!.message.content).toBe('Hello from Azure');
    const request = seen.at(-1)!;
    expect(request.url).toBe('/openai/deployments/gpt-4o-2024-11-20/chat/completions?api-version=2024-10-21');
    expect(request.headers['api-key']).toBe('az-key');
    expect(request.headers['openai-organization']).toBeUndefined();
    expect(request.headers['openai-project']).toBeUndefined();
  });

  it('answers through serve (not a 500)', async () => {
    const test = await startTestServer({
      mock: false,
      gateway: { catalog: testCatalog, env: {}, providers: { azure: { apiKey: 'az-key', baseURL: endpoint } } },
    });
    try {
      const response = await api(test, '/v1/chat/completions', {
        body: { model: 'azure/gpt-4o-latest', messages: hello },
      });
      expect(response.status).toBe(200);
      expect((await jsonOf(response)).choices[0].message.content).toBe('Hello from Azure');
    } finally {
      await test.stop();
    }
  });
});

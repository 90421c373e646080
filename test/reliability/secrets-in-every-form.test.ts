import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, MissingCredentialsError, type SwitchyardError } from '../../src/index.ts';
import { startFakeDeploymentServer } from '../deployments/fake-deployment-server.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { startFakeOpenAIServer } from '../fake-servers/openai-server.ts';
import { captureOutput } from '../helpers/capture-output.ts';
import { api, startTestServer, type TestServer } from '../server/start-test-server.ts';
import { MODELS, type ProviderName } from './harness.ts';

/**
 * Secrets in the forms the key-redaction suites did not try. Credentials inside configured URLs
 * (`http://user:password@host`, a provider's baseURL and the remote deployment store's URL) and a provider key
 * with a line break (which no HTTP header can carry) must appear in no answer, record, log line or error.
 */

const URL_USER = 'alice-url-user';
const URL_PASSWORD = 'hunter2-url-password';
/** Percent-encoded in the URL (`%40`); searched for in both forms. */
const STORE_USER = 'bob-store-user';
const STORE_PASSWORD = 'store@secret-pass';
const NEWLINE_KEY = 'sk-proj-NEWLINEsecret0123\nX-Injected: 456789abcdef';
const SECRETS = [
  URL_USER,
  URL_PASSWORD,
  STORE_USER,
  STORE_PASSWORD,
  encodeURIComponent(STORE_PASSWORD),
  NEWLINE_KEY,
  ...NEWLINE_KEY.split('\n'),
  JSON.stringify(NEWLINE_KEY).slice(1, -1),
];
const hello = [{ role: 'user' as const, content: 'Say hello' }];

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const withCredentials = (url: string) => url.replace('http://', `http://${URL_USER}:${URL_PASSWORD}@`);

/** Every secret found in any of the texts, with where. */
function leaks(texts: Record<string, string[]>): string[] {
  const found: string[] = [];
  for (const [channel, list] of Object.entries(texts))
    for (const text of list)
      for (const secret of SECRETS) if (text.includes(secret)) found.push(`${channel}: ${secret}`);
  return found;
}

async function failure(work: Promise<unknown>): Promise<SwitchyardError> {
  return work.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: SwitchyardError) => error,
  );
}

/** Everything an in-process error exposes: message, JSON, attempts, the cause chain's messages and stacks. */
function errorTexts(error: SwitchyardError): string[] {
  const texts = [error.message, JSON.stringify(error), JSON.stringify(error.attempts), String(error.stack)];
  for (let cause = error.cause as Error | undefined; cause; cause = cause.cause as Error | undefined)
    texts.push(cause.message, String(cause.stack));
  return texts;
}

describe('URL credentials and malformed keys, in process', () => {
  it('a provider baseURL with user:password@ that cannot be reached: the 502 shows [redacted]', async () => {
    const port = await closedPort();
    const texts: Record<string, string[]> = { errors: [], records: [], console: [] };
    await captureOutput(texts.console!, async () => {
      const gateway = createGateway({
        env: {},
        retry: { maxRetries: 0 },
        providers: {
          openai: { apiKey: 'sk-test', baseURL: withCredentials(`http://127.0.0.1:${port}/v1`) },
          anthropic: { apiKey: 'sk-test', baseURL: withCredentials(`http://127.0.0.1:${port}`) },
          google: { apiKey: 'AIza-test', baseURL: withCredentials(`http://127.0.0.1:${port}`) },
        },
      });
      for (const provider of ['openai', 'anthropic', 'google'] as ProviderName[]) {
        const error = await failure(
          gateway.createCompletion({ model: `${provider}/${MODELS[provider]}`, messages: hello }),
        );
        expect(error).toMatchObject({ status: 502, code: 'connection_error' });
        if (provider !== 'google') expect(error.message).toContain(`http://[redacted]@127.0.0.1:${port}`);
        texts.errors!.push(...errorTexts(error));
      }
      await gateway.flush();
      texts.records!.push(JSON.stringify((await gateway.calls.list()).data));
      await gateway.close();
    });
    expect(texts.records![0]).toContain('connection_error');
    expect(leaks(texts)).toEqual([]);
  });

  it('a key with a line break is refused before sending, naming where it came from, never quoting it', async () => {
    const openai = await startFakeOpenAIServer();
    const anthropic = await startFakeAnthropicServer();
    const gemini = await startFakeGeminiServer();
    try {
      const gateway = createGateway({
        env: { GEMINI_API_KEY: NEWLINE_KEY, GEMINI_BASE_URL: gemini.url },
        records: false,
        providers: {
          openai: { apiKey: NEWLINE_KEY, baseURL: openai.url },
          anthropic: { apiKey: NEWLINE_KEY, baseURL: anthropic.url },
        },
      });
      const texts: string[] = [];
      for (const [provider, where] of [
        ['openai', 'providers.openai.apiKey'],
        ['anthropic', 'providers.anthropic.apiKey'],
        ['google', 'GEMINI_API_KEY'],
      ] as const) {
        const error = await failure(
          gateway.createCompletion({ model: `${provider}/${MODELS[provider]}`, messages: hello }),
        );
        expect(error).toBeInstanceOf(MissingCredentialsError);
        expect(error).toMatchObject({ status: 503, code: 'provider_not_configured' });
        expect(error.message).toContain(`Set ${where} (it holds a line break or another character`);
        expect(error.attempts).toEqual([
          expect.objectContaining({
            provider,
            outcome: 'missing_credentials',
            message: `${where} holds a line break or another character that an HTTP header cannot carry`,
          }),
        ]);
        texts.push(...errorTexts(error));
      }
      expect(gateway.configuredProviders()).toEqual([]);
      expect(openai.requests.length + anthropic.requests.length + gemini.requests.length).toBe(0);
      expect(leaks({ errors: texts })).toEqual([]);
      // A trailing line break (a key read from a file) is trimmed by every HTTP client: still usable.
      const trailing = createGateway({ env: {}, providers: { openai: { apiKey: 'sk-ok\n', baseURL: openai.url } } });
      const answer = await trailing.createCompletion({ model: `openai/${MODELS.openai}`, messages: hello });
      expect(answer.choices[0]?.message.content).toBeTruthy();
      await trailing.close();
    } finally {
      await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
    }
  });

  it('the remote deployment store: neither its URL credentials nor a key with a line break leave', async () => {
    const fake = await startFakeDeploymentServer([makeDeployment()]);
    try {
      const url = fake.url.replace('http://', `http://${STORE_USER}:${encodeURIComponent(STORE_PASSWORD)}@`);
      const texts: string[] = [];
      for (const apiKey of [fake.apiKey, NEWLINE_KEY]) {
        const gateway = createGateway({ mock: true, deployments: url, env: { SWITCHYARD_API_KEY: apiKey } });
        const error = await failure(
          gateway.createCompletion({
            model: 'switchyard/deployment/support:production#1',
            input: { product: 'Acme', ticket: 'hi' },
          }),
        );
        expect(error.message).toContain(`http://[redacted]@127.0.0.1`);
        texts.push(...errorTexts(error));
        await gateway.flush();
        texts.push(JSON.stringify((await gateway.calls.list()).data));
        await gateway.close();
      }
      expect(leaks({ errors: texts })).toEqual([]);
    } finally {
      await fake.close();
    }
  });
});

describe('URL credentials and malformed keys, through serve', () => {
  let test: TestServer;
  let store: Awaited<ReturnType<typeof startFakeDeploymentServer>>;
  let port: number;
  const texts: Record<string, string[]> = { bodies: [], calls: [], logs: [], database: [], console: [] };

  beforeAll(async () => {
    port = await closedPort();
    store = await startFakeDeploymentServer([makeDeployment()]);
    const saved = process.env.SWITCHYARD_API_KEY;
    process.env.SWITCHYARD_API_KEY = store.apiKey;
    try {
      test = await startTestServer({
        mock: false,
        deployments: store.url.replace('http://', `http://${STORE_USER}:${encodeURIComponent(STORE_PASSWORD)}@`),
        gateway: {
          env: { ANTHROPIC_API_KEY: NEWLINE_KEY },
          retry: { maxRetries: 0 },
          providers: { openai: { apiKey: 'sk-test', baseURL: withCredentials(`http://127.0.0.1:${port}/v1`) } },
        },
      });
    } finally {
      if (saved === undefined) delete process.env.SWITCHYARD_API_KEY;
      else process.env.SWITCHYARD_API_KEY = saved;
    }
  });
  afterAll(async () => {
    await test?.stop();
    await store?.close();
  });

  it('answers 502, 503 and 503 without the secrets, and keeps them out of records, logs and the database', async () => {
    const client = test.openai();
    await captureOutput(texts.console!, async () => {
      for (const [body, status] of [
        [{ model: `openai/${MODELS.openai}`, messages: hello }, 502],
        [{ model: `openai/${MODELS.openai}`, messages: hello, stream: true }, 502],
        [{ model: `anthropic/${MODELS.anthropic}`, messages: hello }, 503],
        [{ model: 'switchyard/deployment/support:production#1', input: { product: 'A', ticket: 'b' } }, 503],
      ] as const) {
        const error = await client.chat.completions
          .create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)
          .then(
            () => undefined,
            (thrown: unknown) => thrown as InstanceType<typeof OpenAI.APIError>,
          );
        expect(error?.status).toBe(status);
        texts.bodies!.push(String(error?.message), JSON.stringify(error?.error));
        const raw = await api(test, '/v1/chat/completions', { body });
        texts.bodies!.push(await raw.text());
      }
      for (const path of ['/v1/deployments', '/v1/deployments/support%3Aproduction%231', '/v1/health', '/']) {
        texts.bodies!.push(await (await api(test, path)).text());
      }
      texts.calls!.push(await (await api(test, '/v1/calls?limit=100')).text());
    });
    expect(texts.bodies!.join('\n')).toContain('http://[redacted]@127.0.0.1');
    expect(JSON.parse(texts.calls![0]!).data.length).toBeGreaterThanOrEqual(8);
    await test.server.close();
    texts.logs = test.logs.map((line) => JSON.stringify(line));
    expect(texts.logs.join('\n')).toContain('[redacted]@127.0.0.1'); // the listening line names the store
    // Every file of the data directory: the SQLite files and the record journal's (empty after a clean close).
    texts.database = readdirSync(test.dataDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'latin1'));
    expect(leaks(texts)).toEqual([]);
  });
});

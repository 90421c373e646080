import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasePath } from '../../src/server/index.ts';
import { captureOutput } from '../helpers/capture-output.ts';
import type { Fault } from './faulty-server.ts';
import { type Backends, bounded, errorBody, MODELS, type ProviderName, startBackends } from './harness.ts';
import { readTable, type ServeRig, serveGatewayOptions, startServeRig } from './serve-harness.ts';

/**
 * Keys never leave `switchyard serve` in anything it produces. Calls run through the server with known provider
 * keys (some key-shaped, some not) and known client keys: answers, streams, upstream 401s, 429s and 500s that
 * quote the provider key, in-stream errors that quote it, a provider without credentials, refused client keys
 * (unknown, revoked, missing). Then every key is searched for in: the server's JSON log lines, every response
 * body and header, every SSE event, the call-record API and the workflow page, the rows of its SQLite file (the
 * client keys may only appear as their SHA-256 in api_keys, next to the display prefix), the raw bytes of that
 * file, and the console, stdout and stderr of the process.
 */

const PROVIDER_KEYS = {
  openai: 'sk-proj-SERVEsecretOpenai0123456789abcdef',
  anthropic: 'anthropic-SERVE-secret-4c1d9e7b',
  google: 'AIzaSERVEsecretGoogle0123456789abcdefgh',
  openrouter: 'openrouter-SERVE-secret-77a1f0',
} as const;
const PROVIDERS: ProviderName[] = ['openai', 'anthropic', 'google'];
const hello = [{ role: 'user' as const, content: 'Say hello' }];

const channels: Record<string, string[]> = {
  'server log lines': [],
  'response bodies': [],
  'response headers': [],
  'SSE events': [],
  'call-record API and workflow page': [],
  'SQLite calls rows': [],
  'SQLite api_keys rows': [],
  'SQLite deployments rows': [],
  'SQLite file bytes': [],
  'console, stdout, stderr, warnings': [],
};
const scenarios: string[] = [];
/** Client keys: the one in use, one revoked, one the server never issued. */
const clientKeys: string[] = [];
let backends: Backends;
const rigs: ServeRig[] = [];
const CAPTURE_MARKER = 'serve-secrets: capture is on';

function statusFault(
  provider: ProviderName,
  status: number,
  message: string,
  extra: Parameters<typeof errorBody>[3] = {},
  headers: Record<string, string> = {},
): Fault {
  return { kind: 'status', status, body: errorBody(provider, status, message, extra), headers };
}

/** One request through the server: its status, headers, body and (for streams) each SSE event are filed. */
async function observe(rig: ServeRig, name: string, body: unknown, key?: string | null): Promise<number> {
  scenarios.push(name);
  const response = await bounded(
    rig.post('/v1/chat/completions', body, key === undefined ? {} : { key }),
    10_000,
    name,
  );
  const text = await bounded(response.text(), 10_000, name);
  channels['response bodies']!.push(text);
  channels['response headers']!.push(JSON.stringify([...response.headers]));
  if (response.headers.get('content-type')?.startsWith('text/event-stream'))
    channels['SSE events']!.push(...text.split('\n\n').filter(Boolean));
  return response.status;
}

function capturing(work: () => Promise<void>): Promise<void> {
  return captureOutput(channels['console, stdout, stderr, warnings']!, work);
}

beforeAll(async () => {
  backends = await startBackends();
  const { front } = backends;
  const providers = {
    openai: { apiKey: PROVIDER_KEYS.openai, baseURL: `${front.openai.url}/v1` },
    anthropic: { apiKey: PROVIDER_KEYS.anthropic, baseURL: front.anthropic.url },
    google: { apiKey: PROVIDER_KEYS.google, baseURL: front.google.url },
    openrouter: { apiKey: PROVIDER_KEYS.openrouter, baseURL: `${front.openai.url}/v1` },
  };
  const main = await startServeRig(backends, {
    gateway: serveGatewayOptions(backends, { providers, retry: { initialDelayMs: 5, maxDelayMs: 50 } }),
  });
  const { google: _google, ...withoutGoogle } = providers;
  const partial = await startServeRig(backends, {
    gateway: serveGatewayOptions(backends, { providers: withoutGoogle }),
  });
  rigs.push(main, partial);
  const revoked = await main.server.keys.create('to revoke');
  await main.server.keys.revoke(revoked.info.id);
  clientKeys.push(main.key, partial.key, revoked.key, `sy-${'Q'.repeat(20)}NEVERissuedCLIENTkey0`);

  await capturing(async () => {
    console.warn(CAPTURE_MARKER);
    for (const provider of PROVIDERS) {
      const key = PROVIDER_KEYS[provider];
      const model = MODELS[provider];
      const meta = { agent_id: `agent-${provider}`, trace_id: 'secrets-trace', workflow_name: 'secrets' };
      await observe(main, `${provider}: answer`, { model, messages: hello, metadata: meta });
      await observe(main, `${provider}: stream`, {
        model,
        messages: hello,
        stream: true,
        stream_options: { include_usage: true },
        metadata: meta,
      });

      front[provider].enqueue(
        {
          openai: statusFault('openai', 401, `Incorrect API key provided: ${key}.`, {
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          }),
          anthropic: statusFault('anthropic', 401, `invalid x-api-key ${key}`, { type: 'authentication_error' }),
          google: statusFault('google', 400, `API key not valid: ${key}`, {
            googleStatus: 'INVALID_ARGUMENT',
            reason: 'API_KEY_INVALID',
          }),
        }[provider],
      );
      expect(
        await observe(main, `${provider}: upstream 401 quoting the key`, { model, messages: hello, metadata: meta }),
      ).toBe(401);

      const limited =
        provider === 'google'
          ? statusFault('google', 429, `Quota exceeded for key ${key}`, {
              googleStatus: 'RESOURCE_EXHAUSTED',
              retryDelay: '0.01s',
            })
          : statusFault(
              provider,
              429,
              `Rate limit reached for key ${key}`,
              { type: 'rate_limit_error' },
              { 'retry-after-ms': '10' },
            );
      front[provider].enqueue(limited);
      expect(
        await observe(main, `${provider}: 429 quoting the key, retried`, { model, messages: hello, metadata: meta }),
      ).toBe(200);
      front[provider].enqueue(limited, limited, limited);
      expect(
        await observe(main, `${provider}: 429 quoting the key, exhausted`, { model, messages: hello, metadata: meta }),
      ).toBe(429);

      const failing = statusFault(provider, 500, `Internal error while serving ${key}`, { googleStatus: 'INTERNAL' });
      front[provider].enqueue(failing, failing, failing);
      expect(
        await observe(main, `${provider}: 500 quoting the key, exhausted`, { model, messages: hello, metadata: meta }),
      ).toBe(500);

      // An error event in the middle of a stream, quoting the key: it reaches the client as the last SSE event.
      if (provider === 'anthropic')
        backends.anthropic.enqueue({
          streamErrorAfter: 1,
          streamError: { type: 'api_error', message: `Stream failed for ${key}` },
        });
      if (provider === 'openai') {
        const first = {
          id: 'chatcmpl-x',
          object: 'chat.completion.chunk',
          created: 1,
          model,
          choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }],
        };
        front.openai.enqueue({
          kind: 'malformed',
          contentType: 'text/event-stream',
          body:
            `data: ${JSON.stringify(first)}\n\ndata: ` +
            `${JSON.stringify({ error: { message: `Stream failed for ${key}`, type: 'server_error' } })}\n\n`,
        });
      }
      if (provider === 'google') {
        const first = { candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] }, index: 0 }] };
        front.google.enqueue({
          kind: 'malformed',
          contentType: 'text/event-stream',
          body: `data: ${JSON.stringify(first)}\r\n\r\ndata: ${JSON.stringify(streamFailure(key))}\r\n\r\n`,
        });
      }
      expect(
        await observe(main, `${provider}: in-stream error quoting the key`, {
          model,
          messages: hello,
          stream: true,
          metadata: meta,
        }),
      ).toBe(200);
    }

    // OpenAI 503s, then OpenRouter's 401 quoting its own key.
    const unavailable = statusFault('openai', 503, `overloaded (${PROVIDER_KEYS.openai})`);
    front.openai.enqueue(
      unavailable,
      unavailable,
      unavailable,
      statusFault('openai', 401, `Bad key ${PROVIDER_KEYS.openrouter}`, { code: 'invalid_api_key' }),
    );
    await observe(main, 'openai 503s then openrouter 401 quoting its key', {
      model: 'gpt-4o-mini-2024-07-18',
      messages: hello,
    });

    expect(await observe(partial, 'google without credentials', { model: MODELS.google, messages: hello })).toBe(503);
    expect(
      await observe(partial, 'google without credentials, anthropic fallback', {
        model: MODELS.google,
        messages: hello,
        fallbacks: [MODELS.anthropic],
      }),
    ).toBe(200);

    // Refused client keys: revoked, never issued, in a malformed header, missing.
    expect(await observe(main, 'revoked client key', { model: MODELS.openai, messages: hello }, clientKeys[2])).toBe(
      401,
    );
    expect(
      await observe(main, 'client key never issued', { model: MODELS.openai, messages: hello }, clientKeys[3]),
    ).toBe(401);
    expect(
      await observe(main, 'a client key of another server', { model: MODELS.openai, messages: hello }, partial.key),
    ).toBe(401);
    expect(await observe(main, 'no client key', { model: MODELS.openai, messages: hello }, null)).toBe(401);

    // What the server shows of its records: the call-record API and the workflow page.
    for (const path of ['/v1/calls?limit=1000', '/v1/workflows/secrets-trace', '/v1/agents', '/v1/costs/daily', '/']) {
      scenarios.push(`GET ${path}`);
      const response = await bounded(fetch(`${main.url}${path}`, { headers: { authorization: `Bearer ${main.key}` } }));
      expect(response.status, path).toBe(200);
      channels['call-record API and workflow page']!.push(await response.text());
    }
    for (const rig of rigs) await rig.close();
  });

  for (const rig of rigs) {
    channels['server log lines']!.push(...rig.logs.map((line) => JSON.stringify(line)));
    channels['SQLite calls rows']!.push(...readTable(rig.dataDir, 'calls').map((row) => JSON.stringify(row)));
    channels['SQLite api_keys rows']!.push(
      ...readTable(rig.dataDir, 'api_keys').map((row) =>
        JSON.stringify({ ...row, hash: Buffer.from(row.hash as Uint8Array).toString('hex') }),
      ),
    );
    channels['SQLite deployments rows']!.push(
      ...readTable(rig.dataDir, 'deployments').map((row) => JSON.stringify(row)),
    );
    for (const suffix of ['', '-wal', '-shm']) {
      const file = `${databasePath(rig.dataDir)}${suffix}`;
      if (existsSync(file)) channels['SQLite file bytes']!.push(readFileSync(file).toString('latin1'));
    }
  }
}, 60_000);

afterAll(async () => {
  const counted = Object.entries(channels).map(
    ([channel, texts]) =>
      `${channel}: ${texts.length} strings, ${texts.reduce((sum, text) => sum + text.length, 0)} chars`,
  );
  console.log(
    `serve secrets: ${scenarios.length} scenarios, ${Object.keys(PROVIDER_KEYS).length} provider keys and ` +
      `${clientKeys.length} client keys searched in\n  ${counted.join('\n  ')}`,
  );
  for (const rig of rigs) await rig.stop();
  await backends?.close();
});

/**
 * Every key, and for client keys also the part after the display prefix (`sy-` + 8 characters), which is the secret.
 */
function needles(): string[] {
  return [...Object.values(PROVIDER_KEYS), ...clientKeys, ...clientKeys.map((key) => key.slice(11))];
}

function leaks(channel: string): string[] {
  const found: string[] = [];
  for (const text of channels[channel]!) {
    for (const needle of needles()) {
      const at = text.indexOf(needle);
      if (at >= 0) found.push(`${needle} in: ${text.slice(Math.max(0, at - 120), at + needle.length + 40)}`);
    }
  }
  return found;
}

describe('no key in anything switchyard serve produces', () => {
  it('every channel was exercised, and the keys did reach the providers', () => {
    expect(
      channels['server log lines']!.filter((line) => line.includes('"msg":"request"')).length,
    ).toBeGreaterThanOrEqual(scenarios.length - 1);
    expect(channels['response bodies']!.length).toBe(scenarios.filter((name) => !name.startsWith('GET ')).length);
    expect(channels['SSE events']!.filter((event) => event.includes('"error"')).length).toBe(3);
    // One record per call that reached the gateway: all but the record reads and the four refused client keys.
    const refused = scenarios.filter((name) => /client key/.test(name)).length;
    expect(refused).toBe(4);
    expect(channels['SQLite calls rows']!.length).toBe(
      scenarios.filter((name) => !name.startsWith('GET ')).length - refused,
    );
    expect(channels['SQLite api_keys rows']).toHaveLength(3);
    expect(channels['SQLite file bytes']!.length).toBeGreaterThanOrEqual(2);
    expect(channels['console, stdout, stderr, warnings']).toContain(CAPTURE_MARKER);
    expect(
      backends.front.openai.requests.some(
        (request) => request.headers.authorization === `Bearer ${PROVIDER_KEYS.openai}`,
      ),
    ).toBe(true);
    expect(
      backends.front.anthropic.requests.some((request) =>
        `${request.headers['x-api-key']} ${request.headers.authorization}`.includes(PROVIDER_KEYS.anthropic),
      ),
    ).toBe(true);
    expect(
      backends.front.google.requests.some((request) => request.headers['x-goog-api-key'] === PROVIDER_KEYS.google),
    ).toBe(true);
  });

  for (const channel of Object.keys(channels)) {
    it(channel, () => {
      expect(leaks(channel)).toEqual([]);
    });
  }

  it('client keys are stored as their SHA-256 only, next to the display prefix', () => {
    const rows = channels['SQLite api_keys rows']!.map((row) => JSON.parse(row) as { hash: string; prefix: string });
    const hashes = rows.map((row) => row.hash);
    // The key in use, the revoked one (main server) and the other server's key are each stored by hash.
    for (const key of clientKeys.slice(0, 3)) {
      expect(hashes).toContain(createHash('sha256').update(key).digest('hex'));
      expect(rows.map((row) => row.prefix)).toContain(key.slice(0, 11));
    }
    // The key never issued was not stored in any form.
    expect(hashes).not.toContain(createHash('sha256').update(clientKeys[3]!).digest('hex'));
  });
});

/** Gemini's in-stream error event, quoting the key. */
function streamFailure(key: string) {
  return { error: { code: 500, message: `Stream failed for ${key}`, status: 'INTERNAL' } };
}

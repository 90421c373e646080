import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { type Backends, bounded, catalog, errorBody, MODELS, startBackends } from './harness.ts';
import { leaksIn, PROVIDER_KEYS, secretScenarios } from './secret-scenarios.ts';
import { CAPTURE_MARKER, LIBRARY_KEYS, type LibraryRun, runSecretsInProcess } from './secrets-library.ts';
import { runSecretsThroughServe, SERVE_CAPTURE_MARKER, type ServeRun } from './secrets-serve.ts';

/**
 * Keys never leave the process in anything Switchyard produces. One table of calls (secret-scenarios.ts: answers,
 * 401s that echo the key, 429s retried and exhausted, 500s exhausted, streams, in-stream errors echoing the key, a
 * provider without credentials) runs on both surfaces with known, distinctive keys: in process, where every error
 * field, answer, record sink, span and console line is searched; and through `switchyard serve`, where every
 * response, SSE event, log line, record page, SQLite row and the database's bytes are searched, for the provider
 * keys and the client keys too.
 */

let backends: Backends;
beforeAll(async () => {
  backends = await startBackends();
});
afterAll(() => backends?.close());

const reachedWithTheirKeys = () => {
  // The 401s reached the providers with the keys configured (the echo is what the redaction has to remove).
  const { front } = backends;
  expect(
    front.openai.requests.some((request) => request.headers.authorization === `Bearer ${PROVIDER_KEYS.openai}`),
  ).toBe(true);
  expect(
    front.anthropic.requests.some((request) =>
      `${request.headers['x-api-key']} ${request.headers.authorization}`.includes(PROVIDER_KEYS.anthropic),
    ),
  ).toBe(true);
  expect(front.google.requests.some((request) => request.headers['x-goog-api-key'] === PROVIDER_KEYS.google)).toBe(
    true,
  );
};

const summary = (label: string, run: { channels: Record<string, string[]>; scenarios: string[] }, keys: number) => {
  const counted = Object.entries(run.channels).map(
    ([channel, texts]) =>
      `${channel}: ${texts.length} strings, ${texts.reduce((sum, text) => sum + text.length, 0)} chars`,
  );
  console.log(`${label}: ${run.scenarios.length} scenarios, ${keys} keys searched in\n  ${counted.join('\n  ')}`);
};

describe('in process: no provider key in anything Switchyard produces', () => {
  let run: LibraryRun;
  const keys = Object.values(LIBRARY_KEYS);
  beforeAll(async () => {
    for (const front of Object.values(backends.front)) front.reset();
    run = await runSecretsInProcess(backends, secretScenarios());
  }, 60_000);
  afterAll(async () => {
    summary('secrets', run, keys.length);
    await run?.close();
  });

  it('the scenario exercised every channel', () => {
    const { channels } = run;
    expect(channels['error.message']!.length).toBeGreaterThanOrEqual(14);
    expect(channels['records (MemorySink)']!.length).toBeGreaterThanOrEqual(20);
    expect(channels['JSONL file']!.length).toBe(channels['records (MemorySink)']!.length);
    expect(channels['OpenTelemetry spans']!.length).toBe(channels['records (MemorySink)']!.length);
    expect(channels['String(error.cause)']!.length).toBeGreaterThan(0);
    expect(channels['console, stdout, stderr, process warnings']).toContain(CAPTURE_MARKER);
    reachedWithTheirKeys();
    expect(
      run.deploymentServer.requests.some(
        (request) => request.authorization === `Bearer ${LIBRARY_KEYS.deploymentStore}`,
      ),
    ).toBe(true);
  });

  // Regression (fixed; was a bug in the OpenAI and Anthropic adapters' #toProviderError): a ProviderError kept the
  // SDK's error as its `cause`, unredacted. Errors thrown from a stream (StreamInterruptedError → ProviderError → SDK
  // error) keep that chain, so a key quoted in an in-stream error was in String(error.cause.cause) and in what
  // console.error(error) or any logger that follows causes prints.
  for (const channel of [
    'error.message',
    'JSON.stringify(error)',
    'error.attempts',
    'String(error.cause)',
    'util.inspect(error) (what console.error(error) prints)',
    'responses and stream chunks',
    'records (MemorySink)',
    'JSONL file',
    'OpenTelemetry spans',
    'console, stdout, stderr, process warnings',
  ]) {
    it(channel, () => {
      expect(leaksIn(run.channels[channel]!, keys)).toEqual([]);
    });
  }
});

describe('through switchyard serve: no key in anything it produces', () => {
  let run: ServeRun;
  /** Every key, and for client keys also the part after the display prefix (`sy-` + 8 characters), the secret. */
  const needles = () => [
    ...Object.values(PROVIDER_KEYS),
    ...run.clientKeys,
    ...run.clientKeys.map((key) => key.slice(11)),
  ];
  beforeAll(async () => {
    for (const front of Object.values(backends.front)) front.reset();
    run = await runSecretsThroughServe(backends, secretScenarios());
  }, 60_000);
  afterAll(() => summary('serve secrets', run, needles().length));

  it('every channel was exercised, and the keys did reach the providers', () => {
    const { channels, scenarios } = run;
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
    expect(channels['console, stdout, stderr, warnings']).toContain(SERVE_CAPTURE_MARKER);
    reachedWithTheirKeys();
  });

  for (const channel of [
    'server log lines',
    'response bodies',
    'response headers',
    'SSE events',
    'call-record API and workflow page',
    'SQLite calls rows',
    'SQLite api_keys rows',
    'SQLite deployments rows',
    'SQLite file bytes',
    'console, stdout, stderr, warnings',
  ]) {
    it(channel, () => {
      expect(leaksIn(run.channels[channel]!, needles())).toEqual([]);
    });
  }

  it('client keys are stored as their SHA-256 only, next to the display prefix', () => {
    const rows = run.channels['SQLite api_keys rows']!.map(
      (row) => JSON.parse(row) as { hash: string; prefix: string },
    );
    const hashes = rows.map((row) => row.hash);
    // The key in use, the revoked one (main server) and the other server's key are each stored by hash.
    for (const key of run.clientKeys.slice(0, 3)) {
      expect(hashes).toContain(createHash('sha256').update(key).digest('hex'));
      expect(rows.map((row) => row.prefix)).toContain(key.slice(0, 11));
    }
    // The key never issued was not stored in any form.
    expect(hashes).not.toContain(createHash('sha256').update(run.clientKeys[3]!).digest('hex'));
  });
});

describe('redaction removes keys, not words', () => {
  // Regression (fixed; was a bug in src/internal/redact.ts KEY_LIKE): the key-shaped pattern
  // \b(sk|sy|gsk|xai|AIza)[-_A-Za-z0-9*]{8,} also matched ordinary identifiers and words: "skill_level",
  // "synchronizing", "system_fingerprint", the model id "sky-t1-32b-preview". Error messages that quote a schema
  // property, a parameter or a model lost exactly the word the caller needed.
  it('an upstream 400 quoting the property "skill_level" keeps it in error.message', async () => {
    const gateway = createGateway({
      catalog,
      env: {},
      retry: { maxRetries: 0 },
      providers: { openai: { apiKey: PROVIDER_KEYS.openai, baseURL: `${backends.front.openai.url}/v1` } },
    });
    const message =
      "Invalid schema for function 'lookup': In context=('properties', 'skill_level'), 'minimum' is not permitted.";
    backends.front.openai.enqueue({
      kind: 'status',
      status: 400,
      body: errorBody('openai', 400, message, { type: 'invalid_request_error' }),
    });
    const error = await bounded(
      gateway
        .createCompletion({ model: MODELS.openai, messages: [{ role: 'user', content: 'Say hello' }] })
        .catch((caught: unknown) => caught),
    );
    expect((error as Error).message).toContain('skill_level');
  });
});

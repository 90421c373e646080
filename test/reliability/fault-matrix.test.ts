import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordingWait } from '../helpers/recording-wait.ts';
import { FALLBACK, type FaultRow, streamRows } from './fault-rows.ts';
import { refusalRows } from './fault-rows-refusals.ts';
import { retryRows } from './fault-rows-retries.ts';
import { runInProcess, type SurfaceRun } from './fault-surface-library.ts';
import { type ServeSurface, startServeSurface } from './fault-surface-serve.ts';
import { type Backends, guardUnhandledRejections, PROVIDERS, type ProviderName, startBackends } from './harness.ts';
import { readTable } from './serve-harness.ts';

/**
 * The fault matrix: every fault a provider (or the network to it) can produce, for an OpenAI-family model, an
 * Anthropic model and a Gemini model, each row (fault-rows.ts) run on both surfaces against the fake servers behind
 * a fault-injecting front: in process through `createCompletion`, and through `switchyard serve` as an HTTP client
 * sees it. Every call ends in an answer (after a retry or a fallback) or in a typed error carrying the attempt
 * chain. After every test no unhandled rejection was seen, every call settled within a bound (a hang guard, not a
 * speed check), no response is left open on the fronts (idle keep-alive sockets are fine, a stream or a hung request
 * still attached to a socket is not), and the server logged no unexpected error. Backoffs are noted, not spent
 * (`retry.wait`): a row says which waits the gateway chose.
 */

let backends: Backends;
let serve: ServeSurface;
const wait = recordingWait();
const injected: Record<string, number> = {};
beforeAll(async () => {
  backends = await startBackends();
  serve = await startServeSurface(backends, wait);
});
afterAll(async () => {
  const idle = PROVIDERS.map((provider) => `${provider} ${backends.front[provider].openSockets()}`).join(', ');
  console.log(
    `fault matrix: faults injected ${JSON.stringify(injected)}; idle keep-alive sockets left at the end: ${idle}; ` +
      `${serve.callIds.size} call ids of serve checked against SQLite`,
  );
  await serve?.stop();
  await backends?.close();
});
guardUnhandledRejections();
afterEach(async () => {
  for (const provider of PROVIDERS) {
    const front = backends.front[provider];
    expect(await front.settled(), `${provider}: responses still attached to a connection after the test`).toBe(0);
    for (const request of front.requests)
      if (request.fault !== 'pass')
        injected[`${provider}:${request.fault}`] = (injected[`${provider}:${request.fault}`] ?? 0) + 1;
    front.reset();
  }
  expect(
    serve.rig.logs.filter((line) => line.level !== 'info'),
    'unexpected errors in the server log',
  ).toEqual([]);
  wait.waits.length = 0;
});

type Run = (row: FaultRow, arm: () => void) => Promise<SurfaceRun>;
const surfaces: Array<{ name: string; run: Run }> = [
  { name: 'in process', run: (row, arm) => runInProcess(backends, row, wait, arm) },
  { name: 'through switchyard serve', run: (row, arm) => serve.run(row, arm) },
];

const rowsOf = (provider: ProviderName) => [...retryRows(provider), ...streamRows(provider), ...refusalRows(provider)];

describe.each(surfaces)('$name', ({ run }) => {
  describe.each(PROVIDERS)('%s', (provider) => {
    it.each(rowsOf(provider).map((row) => [row.name, row] as const))('%s', async (_name, row) => {
      const front = backends.front[row.provider];
      const fallback = backends.front[FALLBACK[row.provider]];
      /** Where each call's requests begin at the provider's front and at the fallback's. */
      const calls: Array<{ front: number; fallback: number }> = [];
      const arm = () => {
        calls.push({ front: front.requests.length, fallback: fallback.requests.length });
        const reply = row.replies?.(row.provider);
        if (reply) (backends[row.provider].enqueue as (reply: unknown) => void)(reply);
        front.enqueue(...row.faults);
      };
      const seen = await run(row, arm);

      const { expected } = row;
      if (expected.attempts) expect(seen.attempts).toEqual(expected.attempts);
      if (expected.outcomes) expect(seen.outcomes).toEqual(expected.outcomes);
      if (expected.waits) expect(wait.waits).toEqual(calls.flatMap(() => expected.waits!));
      calls.forEach((call, index) => {
        const next = calls[index + 1];
        const sent = front.requests.slice(call.front, next?.front);
        if (expected.requests !== undefined)
          expect(sent, `requests of call ${index + 1}`).toHaveLength(expected.requests);
        if (expected.kind === 'error' && expected.fallbackRequests !== undefined)
          expect(fallback.requests.slice(call.fallback, next?.fallback)).toHaveLength(expected.fallbackRequests);
        if (row.sent) expect(JSON.parse(sent[row.sent.index]!.body).model).toBe(row.sent.model);
      });
    });
  });
});

describe('afterwards', () => {
  it('every call id the server sent is a record in its SQLite file', async () => {
    await serve.rig.close();
    const stored = new Set(readTable(serve.rig.dataDir, 'calls').map((row) => row.id as string));
    expect(serve.callIds.size).toBeGreaterThan(30);
    expect([...serve.callIds].filter((id) => !stored.has(id))).toEqual([]);
  });
});

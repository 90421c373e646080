import { request as httpRequest, type IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { api, startTestServer, type TestServer } from '../server/start-test-server.ts';
import { cursorOfPage, idsInPage, seedLargeCalls, tenantKey } from './large-calls.ts';
import { chatProbe, duringAttack, expectNotStalled } from './other-tenant.ts';

/**
 * One tenant asking for pages of large calls on 16 connections and never reading the answers, while another
 * tenant makes calls: what the server holds for the readers that do not read stays small (a batch of records each,
 * not a page), and the other tenant is answered as usual. The server runs in this process, so its memory is ours.
 */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: slow readers on PostgreSQL (not installed; CI installs it).');
afterAll(() => postgres?.stop());
const stores = [
  { name: 'SQLite', database: undefined },
  ...(postgres ? [{ name: 'PostgreSQL', database: postgres.url }] : []),
];

const SLOW_READERS = 16;
/**
 * What the 16 readers may make the server hold, and its peak grow by: a few MB each (a batch, what the socket took),
 * not a page each (the page built whole was ~45 MB of text, several times that as objects).
 */
const MEMORY_BOUND = 256 * 1024 * 1024;

/**
 * The most memory the process has held since it started (resident, in bytes): its growth over the attack is what
 * the attack took at its worst (0 when an earlier test of this worker had taken more).
 */
const peakBytes = () => process.resourceUsage().maxRSS * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Memory the process holds once garbage is collected: JavaScript objects and the buffers outside them. */
function heldBytes(): number {
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

/** A request whose answer is never read: resolves once its headers arrived, with the way to drop it. */
function slowReader(url: string, path: string, key: string): Promise<{ response: IncomingMessage; drop(): void }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}${path}`, { headers: { authorization: `Bearer ${key}` }, agent: false });
    request.on('response', (response) => {
      response.pause();
      resolve({ response, drop: () => request.destroy() });
    });
    request.on('error', reject);
    request.end();
  });
}

describe.each(stores)('on $name', ({ database }) => {
  let test: TestServer;
  const keys = { reader: '', victim: '' };
  let calls: string[] = [];
  beforeAll(async () => {
    test = await startTestServer(database ? { database } : {});
    keys.reader = (await tenantKey(test, 'reader', { scopes: ['chat', 'calls:read'], allowed_agents: ['bulk'] })).key;
    keys.victim = (await tenantKey(test, 'victim', { scopes: ['chat'] })).key;
    const writer = (await tenantKey(test, 'writer', { scopes: ['chat'] })).id;
    calls = await seedLargeCalls(test, { count: 40, keyId: writer, agent: 'bulk' });
  }, 120_000);
  afterAll(() => test?.stop());

  it('16 readers that never read hold a few MB each, and the other tenant is answered', async () => {
    const before = heldBytes();
    const peakBefore = peakBytes();
    const path = '/v1/calls?agent_id=bulk&limit=140';
    const { result: readers, latency } = await duringAttack({ probe: chatProbe(test.url, keys.victim) }, async () => {
      const stalled = await Promise.all(
        Array.from({ length: SLOW_READERS }, () => slowReader(test.url, path, keys.reader)),
      );
      // The tenant goes on reading its pages as usual meanwhile: the stalled ones slow nobody down.
      let cursor: string | null = null;
      const seen: string[] = [];
      do {
        const response = await api(test, `${path}${cursor ? `&cursor=${cursor}` : ''}`, { key: keys.reader });
        const text = await response.text();
        expect(response.status, text.slice(0, 300)).toBe(200);
        seen.push(...idsInPage(text));
        cursor = cursorOfPage(text);
      } while (cursor);
      expect(seen).toEqual(calls);
      return stalled;
    });
    // Measured once the other tenant is done (collecting garbage stops the process), the readers still stalled.
    const held = heldBytes() - before;
    const peak = peakBytes() - peakBefore;
    for (const reader of readers) reader.drop();
    expectNotStalled(latency);
    expect(readers.map((reader) => reader.response.statusCode)).toEqual(Array(SLOW_READERS).fill(200));
    expect(held, `held ${Math.round(held / 2 ** 20)} MB`).toBeLessThan(MEMORY_BOUND);
    expect(peak, `peak grew by ${Math.round(peak / 2 ** 20)} MB`).toBeLessThan(MEMORY_BOUND);
  }, 120_000);
});

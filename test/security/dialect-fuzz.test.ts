import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';
import { type Dialect, dialectError, MESSAGES_BODIES, prng, RESPONSES_BODIES, send } from './dialect-bodies.ts';
import { mutant } from './dialect-mutants.ts';

/**
 * Seeded mutants of valid Messages and Responses bodies (values of the wrong type, nulls, huge numbers, keys
 * removed or added, item types swapped, items duplicated) through `switchyard serve --mock`: every answer is a
 * success or a 4xx in the dialect's error shape, never a 5xx. Counts are printed.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_423);
const RUNS = Number(process.env.FUZZ_RUNS ?? 2_000);
const CONCURRENCY = 8;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ mock: true });
});
afterAll(() => server.stop());

const counts: Record<Dialect, Record<string, number>> = { responses: {}, messages: {} };
afterAll(() => console.log(`dialect fuzz (seed ${SEED}, ${RUNS} mutants each): ${JSON.stringify(counts)}`));

describe.each([
  ['responses', RESPONSES_BODIES],
  ['messages', MESSAGES_BODIES],
] as const)('%s mutants', (dialect, bases) => {
  it(`answers ${RUNS} seeded mutants with no 5xx, errors in the dialect's shape`, { timeout: 300_000 }, async () => {
    const random = prng(SEED + (dialect === 'messages' ? 1 : 0));
    const bodies = Array.from({ length: RUNS }, () => mutant(bases, random));
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const { status, text } = await send(server, dialect, body);
        const byStatus = counts[dialect];
        byStatus[status] = (byStatus[status] ?? 0) + 1;
        const context = `${status} ${text.slice(0, 300)}\n  body: ${JSON.stringify(body).slice(0, 400)}`;
        if (status >= 500) failures.push(context);
        else if (status >= 400 && typeof dialectError(dialect, text) === 'string') failures.push(context);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    if (failures.length > 0)
      console.log(`${dialect}: ${failures.length} failures, first:\n${failures.slice(0, 8).join('\n')}`);
    expect(failures.length).toBe(0);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagesToChat } from '../../src/dialects/messages/to-chat.ts';
import { responsesToChat } from '../../src/dialects/responses/to-chat.ts';
import { SwitchyardError } from '../../src/errors.ts';
import { api, startTestServer, type TestServer } from '../server/start-test-server.ts';
import { type Dialect, dialectError, send } from './dialect-bodies.ts';
import { worstMessagesBodies, worstResponsesBodies } from './dialect-worst-bodies.ts';

/**
 * No request freezes the server: translating a dialect body is linear in its size, and its lists are bounded
 * (10,000 entries). The worst 4 MB bodies of each dialect translate in well under 100 ms (the figures are printed;
 * the assertion is a generous bound, to catch a return of the quadratic loops without flaking on a loaded machine),
 * and through `switchyard serve` the health check answers while such a body is processed.
 */
const SIZE = 4_000_000;
const BOUND_MS = 1_000;
const translate = { responses: responsesToChat, messages: messagesToChat } as Record<Dialect, (body: never) => unknown>;
const worst: Record<Dialect, Record<string, () => Record<string, unknown>>> = {
  responses: worstResponsesBodies(SIZE),
  messages: worstMessagesBodies(SIZE),
};

function timed(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

describe.each(['responses', 'messages'] as const)('%s translation', (dialect) => {
  it.each(Object.keys(worst[dialect]))('translates %s (about 4 MB) in linear time', (label) => {
    const body = worst[dialect][label]!();
    const bytes = JSON.stringify(body).length;
    expect(bytes).toBeGreaterThan(SIZE * 0.7);
    expect(bytes).toBeLessThanOrEqual(4 * 1024 * 1024);
    // The least of a few runs: the translation's own cost, not a collection or another process that came between.
    const ms = Math.min(...[0, 1, 2, 3, 4].map(() => timed(() => translate[dialect](body as never))));
    console.log(`${dialect}: ${label}, ${(bytes / 1e6).toFixed(2)} MB: ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('refuses a list over 10,000 entries with a 400 naming it, at once', () => {
    const many = Array.from({ length: 40_000 }, (_, index) => ({
      type: 'function_call',
      call_id: `c${index}`,
      name: 'f',
      arguments: '{}',
    }));
    const body =
      dialect === 'responses'
        ? { model: 'gpt-4o-latest', input: many }
        : { model: 'gpt-4o-latest', max_tokens: 10, messages: [{ role: 'assistant', content: many }] };
    let error: unknown;
    const ms = timed(() => {
      try {
        translate[dialect](body as never);
      } catch (thrown) {
        error = thrown;
      }
    });
    console.log(`${dialect}: 40,000 entries refused in ${ms.toFixed(1)} ms`);
    expect(error).toBeInstanceOf(SwitchyardError);
    const param = dialect === 'responses' ? 'input' : 'messages[0].content';
    expect(error).toMatchObject({ status: 400, code: 'too_many_items', param });
    expect((error as Error).message).toContain('at most 10000');
    expect(ms).toBeLessThan(BOUND_MS);
  });
});

describe('through switchyard serve', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ mock: true });
  });
  afterAll(() => server.stop());

  it.each([
    ['responses', 'function calls and reasoning items interleaved'],
    ['messages', 'one assistant turn of 10,000 tool_use blocks'],
  ] as const)(
    'answers the health check while a 4 MB %s body is processed',
    { timeout: 60_000 },
    async (dialect, label) => {
      const body = JSON.stringify(worst[dialect][label]!());
      const started = performance.now();
      let done = false;
      const big = send(server, dialect, body).finally(() => (done = true));
      const health: number[] = [];
      while (!done) {
        const asked = performance.now();
        const response = await api(server, '/v1/health', { key: null });
        expect(response.status).toBe(200);
        await response.arrayBuffer();
        health.push(performance.now() - asked);
      }
      const { status, text } = await big;
      const total = performance.now() - started;
      console.log(
        `serve ${dialect}: ${label}, ${(body.length / 1e6).toFixed(2)} MB answered ${status} ` +
          `in ${total.toFixed(0)} ms; ` +
          `${health.length} health checks meanwhile, slowest ${Math.max(...health).toFixed(0)} ms`,
      );
      // Translated whole, then answered, or refused by the planner as too long for the model's context window (a
      // 4 MB prompt is past gpt-4o's 128,000 tokens): either way the body went through every stage before sending.
      const refusedForSize = status === 400 && /context_length_exceeded|context window/.test(text);
      expect(status === 200 || refusedForSize, text.slice(0, 300)).toBe(true);
      expect(Math.max(...health)).toBeLessThan(BOUND_MS);
    },
  );

  it.each(['responses', 'messages'] as const)('answers a %s body of 40,000 entries with a 400', async (dialect) => {
    const many = Array.from({ length: 40_000 }, (_, index) => ({ type: 'reasoning', summary: [], id: `rs_${index}` }));
    const body =
      dialect === 'responses'
        ? { model: 'gpt-4o-latest', input: many }
        : { model: 'gpt-4o-latest', max_tokens: 10, messages: many.map(() => ({ role: 'user', content: 'x' })) };
    const { status, text } = await send(server, dialect, body);
    expect(status).toBe(400);
    const error = dialectError(dialect, text);
    expect(typeof error === 'string' ? error : error.message).toMatch(/^(input|messages): holds 40000 entries/);
  });
});

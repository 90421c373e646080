import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StorageUnavailableError } from '../../src/errors.ts';
import { EngineWatch } from '../../src/server/engine-watch.ts';

/**
 * The log of an outage: a stack per failed request made 45,012 lines in 20 s. The watch logs the
 * first failure at once, then one line per interval with the failures counted since, then one line when the engine
 * answers again; every failure is counted in exactly one line.
 */
describe('EngineWatch', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('logs an outage once per interval with the count, and its end once', async () => {
    const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
    let up = false;
    const watch = new EngineWatch({
      probes: {
        postgres: async () => {
          if (!up) throw new Error('connect ECONNREFUSED');
        },
      },
      log: (level, msg, fields) => lines.push({ level, msg, fields }),
      logIntervalMs: 200,
      probeMs: 20,
      secrets: ['hunter2-secret'],
    });
    const failure = new StorageUnavailableError('postgres', 'down', new Error('password hunter2-secret refused'));
    let failures = 0;
    // 700 ms of outage, 100 failed requests every 5 ms, on the watch's own clock and timers.
    for (let elapsed = 0; elapsed < 700; elapsed += 5) {
      for (let index = 0; index < 100; index++, failures++) watch.failed(failure);
      await vi.advanceTimersByTimeAsync(5);
    }
    expect(await watch.states()).toEqual({ postgres: 'down' });
    up = true;
    // Its next probe (one a probe period) sees the engine back.
    await vi.advanceTimersByTimeAsync(20);
    expect(lines.some((line) => line.msg === 'postgres is available again')).toBe(true);
    expect(await watch.states()).toEqual({ postgres: 'ok' });
    watch.close();

    expect(lines[0]).toMatchObject({ level: 'warn', fields: { component: 'postgres', failures: 1 } });
    expect(lines[0]!.fields.error).toBe('password [redacted] refused');
    // 700 ms at one line per 200 ms: the first, three or four more, and the return: never one per failure.
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.length).toBeLessThanOrEqual(7);
    expect(lines.at(-1)).toMatchObject({ level: 'info', fields: { component: 'postgres' } });
    expect(lines.reduce((sum, line) => sum + (line.fields.failures as number), 0)).toBe(failures);
  });
});

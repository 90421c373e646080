import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  chatStatus,
  failureOf,
  type LogLine as Line,
  serveExit,
  startLogged,
  startsOver,
} from '../helpers/engine-start.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';

/**
 * A replica started while its PostgreSQL was not answering yet (a compose file starting both, a failover) stopped at
 * once with "The database (PostgreSQL) is unavailable; retry shortly.", saying neither where nor why, where a Redis
 * in the same state was waited for (`--redis-wait`). The start now waits for PostgreSQL the same way
 * (`databaseWaitMs`, `--database-wait`): each failed attempt logged with its cause, the cause named when it gives up,
 * and a failure that is not an outage (a database that does not exist) stopping it at once. Against a real server.
 */
// A server of its own: the test stops and restarts it.
const postgres: ThrowawayPostgres | undefined = await startPostgres({ own: true });
if (!postgres) console.warn('SKIPPED: the PostgreSQL start test (PostgreSQL not installed; CI installs it).');
afterAll(() => postgres?.stop());

/** `serve --mock --database` in process. */
const { start, closeAll } = startsOver(() => ({ database: postgres!.url }));
afterEach(async () => {
  await closeAll();
  await postgres?.restart();
});

const RETRYING = 'postgres not reachable yet; retrying';
const retries = (logs: Line[]) => logs.filter((line) => line.msg === RETRYING);

describe.skipIf(!postgres)('a replica starting while PostgreSQL does not answer', () => {
  it('rides out a PostgreSQL that is down at first and comes back', async () => {
    await postgres!.halt();
    let restarted = false;
    const { server, logs } = await start({}, (line) => {
      if (line.msg !== RETRYING || restarted) return;
      restarted = true;
      void postgres!.restart();
    });
    const [first] = retries(logs);
    expect(first).toMatchObject({ level: 'warn', component: 'postgres', attempt: 1 });
    expect(first!.error).toMatch(/ECONNREFUSED/);
    expect(logs.some((line) => line.msg === 'postgres reachable' && (line.attempts as number) >= 2)).toBe(true);
    expect(await chatStatus(server)).toBe(200);
  }, 60_000);

  it('gives up after the configured wait, naming the cause and the attempts, never the password', async () => {
    await postgres!.halt();
    const withPassword = postgres!.url.replace('://switchyard@', '://switchyard:s3cretpass@');
    const failure = await failureOf(startLogged({ database: withPassword, databaseWaitMs: 1_500 }));
    expect(failure).toBeInstanceOf(Error);
    expect(failure!.message).toMatch(
      /^PostgreSQL could not be reached after (\d+) attempts over 1\.\d s: .*ECONNREFUSED/,
    );
    const attempts = Number(/after (\d+) attempts/.exec(failure!.message)![1]);
    expect(attempts).toBeGreaterThanOrEqual(2);
    // One line per failed attempt but the last, whose cause is the error itself.
    expect(retries(failure!.logs).map((line) => line.attempt)).toEqual(
      Array.from({ length: attempts - 1 }, (_, i) => i + 1),
    );
    expect(JSON.stringify([failure!.message, failure!.logs])).not.toContain('s3cretpass');
  }, 60_000);

  it('with no wait, one attempt', async () => {
    await postgres!.halt();
    const failure = await failureOf(startLogged({ database: postgres!.url, databaseWaitMs: 0 }));
    expect(failure!.message).toMatch(/^PostgreSQL could not be reached after 1 attempt over 0\.\d s: .*ECONNREFUSED/);
    expect(retries(failure!.logs)).toEqual([]);
  }, 60_000);

  it('stops at once on what waiting cannot mend: a database that does not exist', async () => {
    const began = performance.now();
    const failure = await failureOf(
      startLogged({ database: postgres!.url.replace(/\/postgres$/, '/no_such_database') }),
    );
    expect(failure!.message).toMatch(/no_such_database.*does not exist/);
    expect(retries(failure!.logs)).toEqual([]);
    expect(performance.now() - began).toBeLessThan(10_000);
  }, 60_000);
});

describe.skipIf(!postgres)('serve --database-wait', () => {
  it('sets the wait, and the exit names the cause', async () => {
    await postgres!.halt();
    const exit = await serveExit(['--database', postgres!.url, '--database-wait', '1'], {
      SWITCHYARD_DATABASE_URL: '',
    });
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toMatch(/PostgreSQL could not be reached after \d+ attempts over 1\.\d s: .*ECONNREFUSED/);
    expect(exit.stderr).toContain('postgres not reachable yet; retrying');
  }, 60_000);
});

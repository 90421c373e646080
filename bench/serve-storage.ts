/**
 * `switchyard serve` on SQLite versus PostgreSQL, in one run: the same server (in this process, the simulator
 * answering) driven by autocannon at 16 connections for `--duration` seconds per round, rounds alternating, with its
 * records and keys in the data directory's SQLite file, then in a throwaway PostgreSQL (Debian's package); each with
 * the record journal (the default) and without it (`recordJournal: false`). Prints the requests per second of each,
 * the PostgreSQL/SQLite ratio, and what the journal costs on each (1 − median with / median without). The CPU time
 * this process spent per request (server and load generator; PostgreSQL's own is not counted) is printed too: on a
 * busy machine requests per second swing with the neighbours, CPU time per request much less.
 *
 *   node bench/serve-storage.ts [--duration 5] [--rounds 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startServer } from '../src/server/index.ts';
import { startPostgres } from '../test/helpers/postgres.ts';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' } },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const postgres = await startPostgres();
if (!postgres) throw new Error('PostgreSQL is not installed (apt-get install postgresql).');

interface Measured {
  rps: number;
  cpuUsPerRequest: number;
}

async function measure(database: string | undefined, recordJournal: boolean): Promise<Measured> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sy-bench-'));
  const server = await startServer({
    port: 0,
    dataDir,
    mock: true,
    log: () => {},
    recordJournal,
    ...(database ? { database } : {}),
  });
  const { key } = await server.keys.create('bench');
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] });
  const options = {
    url: `${server.url}/v1/chat/completions`,
    method: 'POST',
    connections: 16,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  };
  await autocannon({ ...options, duration: 1 });
  const cpuBefore = process.cpuUsage();
  const result = await autocannon({ ...options, duration });
  const cpu = process.cpuUsage(cpuBefore);
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (result.non2xx || result.errors) throw new Error(`${result.non2xx} non-2xx and ${result.errors} errors`);
  return { rps: result.requests.average, cpuUsPerRequest: (cpu.user + cpu.system) / result.requests.total };
}

const runs: Record<'sqlite' | 'sqliteUnjournaled' | 'postgres' | 'postgresUnjournaled', Measured[]> = {
  sqlite: [],
  sqliteUnjournaled: [],
  postgres: [],
  postgresUnjournaled: [],
};
for (let round = 0; round < rounds; round++) {
  // Which goes first alternates: a run right after another tends to be slower (the last one's garbage, vacuum).
  for (const recordJournal of round % 2 === 0 ? [true, false] : [false, true]) {
    (recordJournal ? runs.sqlite : runs.sqliteUnjournaled).push(await measure(undefined, recordJournal));
    (recordJournal ? runs.postgres : runs.postgresUnjournaled).push(await measure(postgres.url, recordJournal));
  }
}
await postgres.stop();
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const rps = (list: Measured[]) => list.map((run) => run.rps);
const cpu = (list: Measured[]) => Math.round(median(list.map((run) => run.cpuUsPerRequest)));
const cost = (journaled: Measured[], unjournaled: Measured[]) => 1 - median(rps(journaled)) / median(rps(unjournaled));
console.log(
  JSON.stringify({
    sqlite_rps: rps(runs.sqlite).map(Math.round),
    postgres_rps: rps(runs.postgres).map(Math.round),
    sqlite_without_journal_rps: rps(runs.sqliteUnjournaled).map(Math.round),
    postgres_without_journal_rps: rps(runs.postgresUnjournaled).map(Math.round),
    ratio: median(rps(runs.postgres)) / median(rps(runs.sqlite)),
    journal_cost: {
      sqlite: cost(runs.sqlite, runs.sqliteUnjournaled),
      postgres: cost(runs.postgres, runs.postgresUnjournaled),
    },
    cpu_us_per_request: {
      sqlite: cpu(runs.sqlite),
      sqlite_without_journal: cpu(runs.sqliteUnjournaled),
      postgres: cpu(runs.postgres),
      postgres_without_journal: cpu(runs.postgresUnjournaled),
    },
  }),
);

/**
 * `switchyard serve` on SQLite versus PostgreSQL, in one run: the same server (in this process, the simulator
 * answering) driven by autocannon at 16 connections for `--duration` seconds per round, rounds alternating, with its
 * records and keys in the data directory's SQLite file, then in a throwaway PostgreSQL (Debian's package); each with
 * the record journal (the default) and without it (`recordJournal: false`). Prints the requests per second of each,
 * the PostgreSQL/SQLite ratio, and what the journal costs on each (1 − median with / median without).
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

async function measure(database: string | undefined, recordJournal: boolean): Promise<number> {
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
  const result = await autocannon({ ...options, duration });
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (result.non2xx || result.errors) throw new Error(`${result.non2xx} non-2xx and ${result.errors} errors`);
  return result.requests.average;
}

const sqlite: number[] = [];
const pg: number[] = [];
const sqliteUnjournaled: number[] = [];
const pgUnjournaled: number[] = [];
for (let round = 0; round < rounds; round++) {
  sqlite.push(await measure(undefined, true));
  sqliteUnjournaled.push(await measure(undefined, false));
  pg.push(await measure(postgres.url, true));
  pgUnjournaled.push(await measure(postgres.url, false));
}
await postgres.stop();
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const cost = (journaled: number[], unjournaled: number[]) => 1 - median(journaled) / median(unjournaled);
console.log(
  JSON.stringify({
    sqlite_rps: sqlite.map(Math.round),
    postgres_rps: pg.map(Math.round),
    sqlite_without_journal_rps: sqliteUnjournaled.map(Math.round),
    postgres_without_journal_rps: pgUnjournaled.map(Math.round),
    ratio: median(pg) / median(sqlite),
    journal_cost: { sqlite: cost(sqlite, sqliteUnjournaled), postgres: cost(pg, pgUnjournaled) },
  }),
);

/**
 * `switchyard serve` on SQLite versus PostgreSQL, in one run: the same server (in this process, the simulator
 * answering) driven by autocannon at 16 connections for `--duration` seconds per round, rounds alternating, with its
 * records and keys in the data directory's SQLite file, then in a throwaway PostgreSQL (Debian's package). Prints the
 * requests per second of each and their ratio.
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

async function measure(database: string | undefined): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sy-bench-'));
  const server = await startServer({ port: 0, dataDir, mock: true, log: () => {}, ...(database ? { database } : {}) });
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
for (let round = 0; round < rounds; round++) {
  sqlite.push(await measure(undefined));
  pg.push(await measure(postgres.url));
}
await postgres.stop();
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
console.log(
  JSON.stringify({
    sqlite_rps: sqlite.map(Math.round),
    postgres_rps: pg.map(Math.round),
    ratio: median(pg) / median(sqlite),
  }),
);

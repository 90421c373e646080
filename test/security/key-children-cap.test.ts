import { afterAll, describe, expect, it } from 'vitest';
import { MAX_ACTIVE_CHILDREN } from '../../src/server/api-keys.ts';
import { connectMcp, type Minted, mint, serveProcess } from '../helpers/key-race.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * One key minting 150 children at once through two servers sharing its store: exactly `MAX_ACTIVE_CHILDREN`
 * succeed, the rest are refused (403, as a tool error), and no more are stored. Before, each server counted, then
 * inserted, so concurrent mints all saw room (128 children on PostgreSQL).
 */
async function mintConcurrently(urls: string[], key: string, count: number): Promise<Minted[]> {
  const clients = await Promise.all(urls.map((url) => connectMcp(url, key)));
  try {
    return await Promise.all(
      Array.from({ length: count }, (_, index) => mint(clients[index % clients.length]!, { name: `child ${index}` })),
    );
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}

async function expectCapHeld(urls: string[], test: TestServer): Promise<void> {
  const { key, info } = await test.server.keys.create('prolific');
  const results = await mintConcurrently(urls, key, 150);
  const refused = results.filter((result) => !result.ok);
  console.log(`${results.length - refused.length} of 150 concurrent mints succeeded`);
  expect(results.filter((result) => result.ok)).toHaveLength(MAX_ACTIVE_CHILDREN);
  for (const result of refused) expect(result).toMatchObject({ ok: false, text: expect.stringContaining('the limit') });
  const children = (await test.server.keys.list()).filter((row) => row.parent_id === info.id);
  expect(children).toHaveLength(MAX_ACTIVE_CHILDREN);
}

describe('the children cap holds under concurrent mints (SQLite, two processes)', () => {
  let test: TestServer | undefined;
  let other: { url: string; stop: () => Promise<void> } | undefined;
  afterAll(async () => {
    await other?.stop();
    await test?.stop();
  });

  it(`exactly ${MAX_ACTIVE_CHILDREN} of 150 succeed`, async () => {
    test = await startTestServer({ maxConcurrentPerKey: 200 });
    other = await serveProcess(test.dataDir);
    await expectCapHeld([test.url, other.url], test);
  }, 90_000);
});

const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: the PostgreSQL children cap (no PostgreSQL installed; CI installs it).');

describe.skipIf(!postgres)('the children cap holds under concurrent mints (PostgreSQL, two replicas)', () => {
  let replicas: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await postgres?.stop();
  });

  it(`exactly ${MAX_ACTIVE_CHILDREN} of 150 succeed`, async () => {
    replicas = await Promise.all(
      [0, 1].map(() => startTestServer({ database: postgres!.url, maxConcurrentPerKey: 200 })),
    );
    await expectCapHeld(
      replicas.map((replica) => replica.url),
      replicas[0]!,
    );
  }, 90_000);
});

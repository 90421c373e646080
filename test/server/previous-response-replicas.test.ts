import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from './start-test-server.ts';

/**
 * Two replicas of serve on one PostgreSQL: a conversation's next turn may reach the other replica before the first
 * turn's record left its replica's queue (written within a second). It is found all the same, not a 404.
 */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: previous_response_id across replicas (no PostgreSQL installed; CI installs it).');
let one: TestServer;
let two: TestServer;
beforeAll(async () => {
  if (!postgres) return;
  one = await startTestServer({ database: postgres.url });
  two = await startTestServer({ database: postgres.url });
}, 60_000);
afterAll(async () => {
  await two?.stop();
  await one?.stop();
  await postgres?.stop();
});

describe.skipIf(!postgres)('previous_response_id across replicas', () => {
  it('the next turn on the other replica, sent at once, continues the conversation', async () => {
    const { key } = await one.server.keys.create('turns');
    const first = await one.openai(key).responses.create({ model: 'gpt-4o-mini', input: 'My name is Ada.' });
    const second = await two
      .openai(key)
      .responses.create({ model: 'gpt-4o-mini', previous_response_id: first.id, input: 'What is my name?' });
    expect(second.status).toBe('completed');
  });

  it('an id nobody answered is still a 404, after the wait', async () => {
    const { key } = await one.server.keys.create('unknown');
    const started = Date.now();
    const error = await two
      .openai(key)
      .responses.create({ model: 'gpt-4o-mini', previous_response_id: `resp_${'0'.repeat(32)}`, input: 'x' })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ status: 404 });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

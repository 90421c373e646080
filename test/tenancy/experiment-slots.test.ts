import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockProvider } from '../../src/providers/mock/simulator.ts';
import { MAX_BACKGROUND_RUNS, MAX_BACKGROUND_RUNS_PER_TENANT } from '../../src/server/background-runs.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Experiment runs left running in the background are capped per tenant, not per key (issue 36, item 9): a tenant
 * whose key mints children takes no more of the server's runs than a tenant with one key, and another tenant can
 * still start one. Every cell waits on a gate, so the runs stay under way until the test opens it.
 */
let test: TestServer;
let open: () => void = () => undefined;
const gate = new Promise<void>((resolve) => (open = resolve));

beforeAll(async () => {
  const simulator = new MockProvider({
    respond: async () => {
      await gate;
      return 'fine';
    },
  });
  test = await startTestServer({ mock: simulator });
}, 30_000);
afterAll(async () => {
  open();
  await test.stop();
});

async function mint(name: string, scopes: string[], parent = test.key): Promise<string> {
  const response = await api(test, '/v1/keys', { key: parent, body: { name, scopes } });
  expect(response.status).toBe(201);
  return (await jsonOf(response)).key;
}

let made = 0;
/** An experiment of one new cell, created and run by `key`: the run's HTTP status. */
async function runAs(key: string): Promise<number> {
  made++;
  const version = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say {{word}}' }] };
  const created = await api(test, '/v1/experiments', {
    key,
    body: { agent_id: 'support', versions: [version], inputs: [{ variables: { word: `hi ${made}` } }] },
  });
  expect(created.status).toBe(201);
  return (await api(test, `/v1/experiments/${(await jsonOf(created)).id}/run`, { key, body: {} })).status;
}

describe('experiment run slots per tenant', () => {
  it('a key with keys:create and its children share one tenant’s runs; another tenant still gets one', async () => {
    const team = await mint('team', ['chat', 'keys:create']);
    const children = [];
    for (let n = 0; n < 3; n++) children.push(await mint(`team-child-${n}`, ['chat'], team));
    const tree = [team, ...children];
    const statuses: number[] = [];
    for (let round = 0; round < MAX_BACKGROUND_RUNS / tree.length; round++)
      for (const key of tree) statuses.push(await runAs(key));
    expect(statuses.filter((status) => status === 202)).toHaveLength(MAX_BACKGROUND_RUNS_PER_TENANT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(
      MAX_BACKGROUND_RUNS - MAX_BACKGROUND_RUNS_PER_TENANT,
    );

    const other = await mint('other', ['chat']);
    expect(await runAs(other)).toBe(202);
  });
});

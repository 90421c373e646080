import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDeploymentServer, startFakeDeploymentServer } from '../deployments/fake-deployment-server.ts';
import { startTestServer, type TestServer } from './start-test-server.ts';

/**
 * Two replicas (or two workers) on one remote deployment service: a version one creates is what the other numbers
 * and compares its next version against, at once, not once its cached list lapses (30 s).
 */
let service: FakeDeploymentServer;
const replicas: TestServer[] = [];
const clients: Client[] = [];
beforeAll(async () => {
  service = await startFakeDeploymentServer([]);
  const before = process.env.SWITCHYARD_API_KEY;
  process.env.SWITCHYARD_API_KEY = service.apiKey;
  try {
    for (let index = 0; index < 2; index++) replicas.push(await startTestServer({ deployments: service.url }));
  } finally {
    if (before === undefined) delete process.env.SWITCHYARD_API_KEY;
    else process.env.SWITCHYARD_API_KEY = before;
  }
}, 30_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all(replicas.map((replica) => replica.stop()));
  await service.close();
});

async function createVersion(replica: TestServer, content: string) {
  const client = new Client({ name: 'deployment-versions-test', version: '1.0.0' });
  const requestInit = { headers: { authorization: `Bearer ${replica.key}` } };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${replica.url}/mcp`), { requestInit }));
  clients.push(client);
  const result = await client.callTool({
    name: 'create_or_update_deployment',
    arguments: { agent_id: 'support', version: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] } },
  });
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  expect(result.isError, text).not.toBe(true);
  return JSON.parse(text) as { created: boolean; deployment: { id: string; number: number } };
}

describe('create_or_update_deployment on two replicas of one remote store', () => {
  it("numbers and compares against the other replica's latest version at once", async () => {
    const [first, second] = replicas as [TestServer, TestServer];
    expect(await createVersion(first, 'Answer {{ticket}}')).toMatchObject({ created: true, deployment: { number: 1 } });
    // The second replica has read (and cached) the agent's versions: #1 is the latest.
    expect(await createVersion(second, 'Answer {{ticket}}')).toMatchObject({
      created: false,
      deployment: { number: 1 },
    });
    expect(await createVersion(first, 'Answer briefly: {{ticket}}')).toMatchObject({ deployment: { number: 2 } });
    // A rollback to #1's content on the other replica is a new version, #3: #2 is the latest now.
    expect(await createVersion(second, 'Answer {{ticket}}')).toMatchObject({
      created: true,
      deployment: { number: 3 },
    });
  });
});

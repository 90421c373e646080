import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockProvider, type MockRequest } from '../../src/providers/mock/simulator.ts';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { startTestServer, type TestServer } from './start-test-server.ts';

/**
 * The acceptance test of experiments: a coding agent improves the agent "support" through `/mcp` alone, from its
 * recorded calls to a deployment of the better version, which an app then calls through the openai SDK.
 */
let test: TestServer;
let key = '';
let client: Client;
type Any = Record<string, any>;

const SYSTEM = 'You are the support agent of a shop.';
const PROMPT = [
  { role: 'system', content: SYSTEM },
  { role: 'user', content: 'Customer message: {{message}}' },
];
const TRIAGE = [
  { role: 'system', content: `${SYSTEM} Sort the message into a category, then answer it in one sentence.` },
  { role: 'user', content: 'Customer message: {{message}}' },
];
const OUTPUT = {
  type: 'object',
  properties: { category: { type: 'string', enum: ['shipping', 'refund', 'other'] }, reply: { type: 'string' } },
  required: ['category', 'reply'],
  additionalProperties: false,
};
const MESSAGES = ['my parcel is late', 'I want a refund', 'the parcel never came', 'refund my order please'];

/** The simulator: a structured answer (category, reply) when a schema is asked for, else an echo. */
function respond(request: MockRequest): string {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  const asked = String(messages.filter((message) => message.role === 'user').at(-1)?.content ?? '');
  if (!request.output) return `Thanks for writing: ${asked}`;
  const category = /late|parcel/.test(asked) ? 'shipping' : /refund/.test(asked) ? 'refund' : 'other';
  return JSON.stringify({ category, reply: `We are on it (${category}).` });
}

async function tool(name: string, args: Record<string, unknown>): Promise<Any> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  expect(result.isError, `${name}: ${text}`).not.toBe(true);
  return JSON.parse(text);
}

/** `get_experiment`, waiting until every cell ended. */
async function completed(experimentId: string): Promise<Any> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const experiment = await tool('get_experiment', { experiment_id: experimentId, max_wait_seconds: 30 });
    if (experiment.status === 'completed') return experiment;
  }
  throw new Error(`${experimentId} did not complete`);
}

beforeAll(async () => {
  test = await startTestServer({ mock: new MockProvider({ respond }) });
  const grant: KeyGrant = {
    scopes: ['chat', 'calls:read', 'annotations:write', 'deployments:read', 'deployments:write'],
    allowed_agents: ['support'],
    allowed_models: null,
    expires_at: null,
  };
  key = (await test.server.keys.create('coding-agent', { grant })).key;
  const openai = test.openai(key);
  for (let i = 0; i < 12; i++)
    await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: PROMPT,
      metadata: { agent_id: 'support' },
      input: { message: `${MESSAGES[i % MESSAGES.length]} (order ${1000 + i})` },
    } as never);
  client = new Client({ name: 'coding-agent', version: '1.0.0' });
  const headers = { authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers } }));
}, 60_000);
afterAll(async () => {
  await client.close();
  await test.stop();
});

describe('the improvement loop through MCP', () => {
  it('recorded calls → experiment → annotation → deployment of the better version → called by the app', async () => {
    const agents = await tool('list_agents', {});
    expect(agents.data).toMatchObject([{ agent_id: 'support', calls: 12, deployments: 0 }]);
    const recent = await tool('query_completions', { filter: { agent_id: 'support' }, limit: 10 });
    expect(recent.data).toHaveLength(10);
    expect(recent.data.every((row: Any) => row.agent_id === 'support' && row.status === 'ok')).toBe(true);

    const created = await tool('create_experiment', {
      agent_id: 'support',
      title: 'Plain answers vs triage with a category',
      description: 'Does a structured triage answer the same customers better?',
      versions: [
        { label: 'current', model: 'gpt-4o-mini', messages: PROMPT },
        { label: 'triage', model: 'gpt-4o', messages: TRIAGE, output_schema: { json_schema: OUTPUT } },
      ],
      inputs: [{ from_calls: { filter: { agent_id: 'support' }, limit: 10 } }],
    });
    expect(created.status).toBe('running');
    expect(created.inputs).toHaveLength(10);
    expect(created.inputs.every((input: Any) => input.variables.message)).toBe(true);
    // The newest 10 calls, the ones query_completions listed (their inputs all differ).
    const sources = created.inputs.map((input: Any) => input.source_call_id).sort();
    expect(sources).toEqual(recent.data.map((row: Any) => row.id).sort());

    const experiment = await completed(created.id);
    expect(experiment.cells).toHaveLength(20);
    expect(experiment.cells.every((cell: Any) => cell.status === 'completed')).toBe(true);
    const [current, triage] = experiment.summaries;
    expect(current).toMatchObject({ cells: 10, completed: 10, failed: 0, valid: null });
    expect(triage).toMatchObject({ cells: 10, completed: 10, failed: 0, valid: 10 });
    const triageCell = experiment.cells.find((cell: Any) => cell.version_id === triage.version_id);
    expect(['shipping', 'refund']).toContain(triageCell.parsed.category);

    const cellId = `${experiment.versions[1].id}.${experiment.inputs[0].id}`;
    expect(triageCell.id).toBe(cellId);
    const target = { experiment_id: experiment.id, cell_id: cellId };
    const notes = await tool('add_annotations', {
      annotations: [{ target, text: 'Right category, short reply.', metric: { name: 'quality', value: 0.9 } }],
    });
    expect(notes.data).toHaveLength(1);
    const annotated = await tool('get_experiment', { experiment_id: experiment.id });
    expect(annotated.annotations).toMatchObject([{ cell_id: cellId, metric: { name: 'quality', value: 0.9 } }]);
    expect(annotated.summaries[1].metrics).toEqual({ quality: { average: 0.9, count: 1 } });

    const deployed = await tool('create_or_update_deployment', {
      agent_id: 'support',
      version: experiment.versions[1].content,
      description: `The triage version of ${experiment.id}.`,
    });
    const deploymentId = deployed.deployment.id as string;
    expect(deploymentId).toMatch(/^support:production#\d+$/);
    const answer = await test.openai(key).chat.completions.create({
      model: `switchyard/deployment/${deploymentId}`,
      input: { message: 'my parcel is late again' },
    } as never);
    expect(JSON.parse(answer.choices[0]!.message.content!)).toEqual({
      category: 'shipping',
      reply: 'We are on it (shipping).',
    });
  });

  it('runs a 10 × 4 experiment on the simulator (timed, for the record)', async () => {
    const started = performance.now();
    const temperatures = [0, 0.3, 0.6, 0.9];
    const created = await tool('create_experiment', {
      agent_id: 'support',
      title: '10 × 4',
      versions: temperatures.map((temperature) => ({ model: 'gpt-4o-mini', messages: PROMPT, temperature })),
      inputs: Array.from({ length: 10 }, (_, i) => ({ variables: { message: `timing ${i}` } })),
    });
    const experiment = await completed(created.id);
    const ms = performance.now() - started;
    const called = experiment.cells.filter((cell: Any) => cell.status === 'completed' && cell.reused_from === null);
    expect(called).toHaveLength(40);
    console.log(`10 × 4 experiment through MCP on the simulator: ${ms.toFixed(0)} ms (create to completed)`);
  });
});

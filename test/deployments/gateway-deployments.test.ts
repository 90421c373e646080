import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryDeploymentStore } from '../../src/entries/stores.ts';
import { createGateway, type Deployment, DeploymentNotFoundError } from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';
import { testCatalog } from '../helpers/test-catalog.ts';

const triage: Deployment = {
  id: 'triage:production#2',
  agent_id: 'triage',
  environment: 'production',
  number: 2,
  created_at: '2026-11-01T09:00:00Z',
  description: 'Routes support tickets',
  version: {
    model: 'gpt-4o-latest',
    temperature: 0.1,
    messages: [
      { role: 'system', content: 'You triage tickets for {{product.name}}.' },
      { role: 'user', content: 'Ticket from {{customer}}: {{ticket}}' },
    ],
    output_schema: {
      json_schema: {
        type: 'object',
        properties: { queue: { type: 'string', enum: ['billing', 'bugs', 'sales'] }, urgent: { type: 'boolean' } },
        required: ['queue', 'urgent'],
        additionalProperties: false,
      },
    },
  },
};
const input = { product: { name: 'Switchyard' }, customer: 'Tom & Jerry <tj@example.com>', ticket: 'Refund please' };

describe('calling a deployment by id', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'switchyard-deployments-'));
    await writeFile(join(directory, 'triage.json'), JSON.stringify(triage));
  });
  afterAll(() => rm(directory, { recursive: true, force: true }));

  it(
    'from a directory, with only input: stored prompt rendered, schema and settings applied, agent from the ' +
      'deployment',
    async () => {
      const mock = createMockProvider();
      const gateway = createGateway({ catalog: testCatalog, mock, deployments: directory });
      const response = await gateway.createCompletion({
        model: 'switchyard/deployment/triage:production#2',
        input,
        metadata: { agent_id: 'ignored', trace_id: 'trace-1', workflow_name: 'support' },
      });
      const received = mock.calls[0]!.body;
      expect(received.messages).toEqual([
        { role: 'system', content: 'You triage tickets for Switchyard.' },
        { role: 'user', content: 'Ticket from Tom & Jerry <tj@example.com>: Refund please' },
      ]);
      expect(received.temperature).toBe(0.1);
      expect(received.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'triage' } });
      expect(response.choices[0]!.message.parsed).toEqual({ queue: 'billing', urgent: true });
      expect(response.switchyard).toMatchObject({
        agent_id: 'triage',
        deployment_id: 'triage:production#2',
        model: 'gpt-4o-2024-11-20',
      });
      expect(await gateway.listDeployments({ agent_id: 'triage' })).toHaveLength(1);
    },
  );

  it('accepts deployment/<id>, and the caller’s settings override the stored ones', async () => {
    const mock = createMockProvider();
    const gateway = createGateway({ catalog: testCatalog, mock, deployments: new MemoryDeploymentStore([triage]) });
    await gateway.createCompletion({ model: 'deployment/triage:production#2', input, temperature: 0.9, messages: [] });
    expect(mock.calls[0]!.body.temperature).toBe(0.9);
  });

  it('names the missing variable, and an unknown id is a 404 listing the agent’s deployments', async () => {
    const gateway = createGateway({
      catalog: testCatalog,
      mock: true,
      deployments: new MemoryDeploymentStore([triage]),
    });
    await expect(
      gateway.createCompletion({
        model: 'switchyard/deployment/triage:production#2',
        input: { product: { name: 'x' } },
      }),
    ).rejects.toMatchObject({
      status: 400,
      param: 'input.customer',
    });
    const error = await gateway
      .createCompletion({ model: 'switchyard/deployment/triage:production#9', input })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(DeploymentNotFoundError);
    expect(error.status).toBe(404);
    expect(error.message).toContain('triage:production#2');
  });
});

describe('a deployment whose model has no native structured output', () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAIServer();
  });
  afterAll(() => server.close());

  it('gets the output schema in its prompt and a validated answer', async () => {
    const onDeepSeek: Deployment = {
      ...triage,
      id: 'triage:staging#3',
      environment: 'staging',
      number: 3,
      version: { ...triage.version, model: 'deepseek-reasoner-v3.2' },
    };
    const gateway = createGateway({
      catalog: testCatalog,
      env: {},
      providers: { deepseek: { apiKey: 'k', baseURL: server.url } },
      deployments: new MemoryDeploymentStore([onDeepSeek]),
    });
    server.enqueue({ content: '```json\n{"queue": "billing", "urgent": false}\n```' });
    const response = await gateway.createCompletion({ model: 'switchyard/deployment/triage:staging#3', input });
    const sent = server.requests[0]!.body;
    expect(sent.response_format).toEqual({ type: 'json_object' });
    expect(sent.messages.map((message: { role: string }) => message.role)).toEqual(['system', 'system', 'user']);
    expect(sent.messages[1].content).toContain('"enum":["billing","bugs","sales"]');
    expect(response.choices[0]!.message.content).toBe('{"queue":"billing","urgent":false}');
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.ts';
import { MockProvider, type MockRequest } from '../../src/testing/index.ts';

const SCHEMA = {
  type: 'object' as const,
  properties: { label: { type: 'string' }, score: { type: 'number' } },
  required: ['label', 'score'],
  additionalProperties: false,
};
const PROMPT = [{ role: 'user' as const, content: 'Classify: {{text}}' }];

/** The text of the last user message the simulator received. */
function asked(request: MockRequest): string {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  const last = messages.filter((message) => message.role === 'user').at(-1)?.content;
  return typeof last === 'string' ? last : JSON.stringify(last);
}

/** Answers by model: mini says "spam" for every text, the other model differs on texts holding "b". */
function respond(request: MockRequest) {
  const text = asked(request);
  const label = request.model.includes('mini') || !text.includes('b') ? 'spam' : 'ham';
  return JSON.stringify({ label, score: 1 });
}

describe('gateway.experiments', () => {
  let gateway: Gateway;
  let simulator: MockProvider;
  let directory: string;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'experiments-'));
    simulator = new MockProvider({ respond });
    gateway = createGateway({ mock: simulator, deployments: directory });
    for (const text of ['a1', 'b2', 'a1', 'b3'])
      await gateway.createCompletion({
        model: 'gpt-4o-mini',
        messages: PROMPT,
        input: { text },
        metadata: { agent_id: 'support' },
      });
    await gateway.createCompletion({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'plain question' },
      ],
      metadata: { agent_id: 'support' },
    });
    await gateway.createCompletion({
      model: 'gpt-4o-mini',
      messages: PROMPT,
      input: { text: 'other agent' },
      metadata: { agent_id: 'billing' },
    });
  });
  afterAll(async () => {
    await gateway.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('copies the newest distinct inputs of the agent’s calls, variables or non-system messages', async () => {
    const experiment = await gateway.experiments.create({
      agent_id: 'support',
      inputs: [{ from_calls: { limit: 10 } }],
    });
    const copied = experiment.inputs.map((input) => input.variables ?? input.messages);
    expect(copied).toEqual([
      [{ role: 'user', content: 'plain question' }],
      { text: 'b3' },
      { text: 'a1' },
      { text: 'b2' },
    ]);
    expect(experiment.inputs.every((input) => input.source_call_id !== null)).toBe(true);
    const limited = await gateway.experiments.create({ agent_id: 'support', inputs: [{ from_calls: { limit: 2 } }] });
    expect(limited.inputs).toHaveLength(2);
    const filtered = await gateway.experiments.create({
      agent_id: 'support',
      inputs: [{ from_calls: { filter: { agent_id: 'billing' } } }],
    });
    expect(filtered.inputs.map((input) => input.variables)).toEqual([{ text: 'other agent' }]);
  });

  it('runs versions × inputs: outputs parsed and checked, totals per version, differing fields', async () => {
    const before = simulator.calls.length;
    const experiment = await gateway.experiments.create({
      agent_id: 'support',
      title: 'mini or not',
      versions: [
        { model: 'gpt-4o-mini', messages: PROMPT, output_schema: { json_schema: SCHEMA }, label: 'mini' },
        { model: 'gpt-4o', messages: PROMPT, output_schema: { json_schema: SCHEMA }, temperature: 0 },
      ],
      inputs: [{ variables: { text: 'a' } }, { variables: { text: 'b' }, label: 'the b one' }],
    });
    expect(experiment.status).toBe('idle');
    expect(experiment.versions.map((version) => version.label)).toEqual(['mini', 'gpt-4o']);
    const done = await gateway.experiments.run(experiment.id, { concurrency: 2 });
    expect(simulator.calls.length - before).toBe(4);
    expect(done.status).toBe('completed');
    expect(done.cells.map((cell) => [cell.status, (cell.parsed as { label: string }).label, cell.valid])).toEqual([
      ['completed', 'spam', true],
      ['completed', 'spam', true],
      ['completed', 'spam', true],
      ['completed', 'ham', true],
    ]);
    const [mini, full] = done.summaries;
    expect(mini).toMatchObject({ cells: 2, completed: 2, failed: 0, pending: 0, valid: 2 });
    expect(full!.cost_usd).toBeGreaterThan(mini!.cost_usd);
    expect(done.spent_usd).toBeCloseTo(mini!.cost_usd + full!.cost_usd, 9);
    expect(mini!.latency_ms.p50).not.toBeNull();
    expect(done.comparisons).toEqual([
      { input_id: done.inputs[0]!.id, differing: [], same: ['label', 'score'] },
      { input_id: done.inputs[1]!.id, differing: ['label'], same: ['score'] },
    ]);
    // Each cell is a recorded call tagged with the experiment, with its cost.
    await gateway.flush();
    const record = await gateway.calls.get!(done.cells[3]!.call_id!);
    expect(record).toMatchObject({ agent_id: 'support', input: { text: 'b' }, cost_usd: done.cells[3]!.cost_usd });
    expect(record!.metadata).toMatchObject({ experiment_id: done.id, experiment_cell_id: done.cells[3]!.id });
    // Running again calls for nothing: every cell is there.
    await gateway.experiments.run(experiment.id);
    expect(simulator.calls.length - before).toBe(4);
  });

  it('reuses an identical cell, of this experiment or an earlier one, unless told not to', async () => {
    const version = { model: 'gpt-4o-mini', messages: PROMPT, max_completion_tokens: 50 };
    const first = await gateway.experiments.create({
      agent_id: 'support',
      versions: [version, { ...version, label: 'the same again' }],
      inputs: [{ variables: { text: 'reuse me' } }],
    });
    const before = simulator.calls.length;
    const ran = await gateway.experiments.run(first.id, { concurrency: 1 });
    expect(simulator.calls.length - before).toBe(1);
    expect(ran.cells[1]!.reused_from).toBe(`${first.id}/${ran.cells[0]!.id}`);
    expect(ran.spent_usd).toBe(ran.cells[0]!.cost_usd);
    const second = await gateway.experiments.create({
      agent_id: 'support',
      versions: [version],
      inputs: [{ variables: { text: 'reuse me' } }],
    });
    const reused = await gateway.experiments.run(second.id);
    expect(simulator.calls.length - before).toBe(1);
    expect(reused.cells[0]).toMatchObject({
      reused_from: `${first.id}/${ran.cells[0]!.id}`,
      output: ran.cells[0]!.output,
    });
    expect(reused.spent_usd).toBe(0);
    const third = await gateway.experiments.create({
      agent_id: 'support',
      versions: [version],
      inputs: [{ variables: { text: 'reuse me' } }],
    });
    await gateway.experiments.run(third.id, { reuse: false });
    expect(simulator.calls.length - before).toBe(2);
  });

  it('pins a deployment (by id or environment) with overrides; another agent’s deployment does not exist', async () => {
    const { FileDeploymentStore } = await import('../../src/deployments/file-store.ts');
    const store = new FileDeploymentStore(directory);
    await store.put({
      id: 'support:production#1',
      agent_id: 'support',
      environment: 'production',
      number: 1,
      created_at: '2026-01-01T00:00:00Z',
      version: { model: 'gpt-4o-mini', messages: PROMPT, temperature: 0.5 },
    });
    await store.put({
      id: 'billing:production#1',
      agent_id: 'billing',
      environment: 'production',
      number: 1,
      created_at: '2026-01-01T00:00:00Z',
      version: { model: 'gpt-4o-mini', messages: PROMPT },
    });
    const experiment = await gateway.experiments.create({
      agent_id: 'support',
      versions: [
        { deployment_id: 'support:production#1' },
        { environment: 'production', overrides: { model: 'gpt-4o', temperature: 0 }, label: 'bigger' },
      ],
    });
    expect(experiment.versions.map((v) => [v.label, v.deployment_id, v.content.model, v.content.temperature])).toEqual([
      ['support:production#1', 'support:production#1', 'gpt-4o-mini', 0.5],
      ['bigger', 'support:production#1', 'gpt-4o', 0],
    ]);
    await expect(
      gateway.experiments.addVersions(experiment.id, [{ deployment_id: 'billing:production#1' }]),
    ).rejects.toMatchObject({ status: 400, param: 'versions.0' });
    await expect(
      gateway.experiments.addVersions(experiment.id, [{ model: 'gpt-4o-mini', messages: PROMPT, temperature: 9 }]),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      gateway.experiments.create({ agent_id: 'support', versions: [{ model: 'gpt-4o-mini' } as never] }),
    ).rejects.toMatchObject({ status: 400, param: 'versions.0' });
  });

  it('annotates cells: listed with the experiment, metrics averaged per version', async () => {
    const experiment = await gateway.experiments.create({
      agent_id: 'support',
      versions: [{ model: 'gpt-4o-mini', messages: PROMPT }],
      inputs: [{ variables: { text: 'x' } }, { variables: { text: 'y' } }],
    });
    const ran = await gateway.experiments.run(experiment.id);
    const [first, second] = ran.cells;
    await gateway.annotations.add([
      { target: { experiment_id: ran.id, cell_id: first!.id }, metric: { name: 'accuracy', value: 1 } },
      { target: { experiment_id: ran.id, cell_id: second!.id }, metric: { name: 'accuracy', value: 0 }, text: 'no' },
    ]);
    const got = await gateway.experiments.get(ran.id);
    expect(got.summaries[0]!.metrics).toEqual({ accuracy: { average: 0.5, count: 2 } });
    expect(got.annotations.map((note) => note.cell_id).sort()).toEqual([first!.id, second!.id].sort());
    expect((await gateway.annotations.list({ experiment_id: ran.id })).data[0]!.agent_id).toBe('support');
    await expect(
      gateway.annotations.add({ target: { experiment_id: ran.id, cell_id: `${first!.version_id}.inp_x` }, text: 'x' }),
    ).rejects.toMatchObject({ status: 404, code: 'cell_not_found' });
  });

  it('samples production calls only: cells’ own calls unless the filter names an experiment', async () => {
    const experiment = await gateway.experiments.create({
      agent_id: 'sampling',
      versions: [{ model: 'gpt-4o-mini', messages: PROMPT }],
      inputs: [{ variables: { text: 'from a cell' } }],
    });
    await gateway.experiments.run(experiment.id);
    const sampled = await gateway.experiments.create({ agent_id: 'sampling', inputs: [{ from_calls: {} }] });
    expect(sampled.inputs).toEqual([]);
    const asked = await gateway.experiments.create({
      agent_id: 'sampling',
      inputs: [{ from_calls: { filter: { metadata: { experiment_id: experiment.id } } } }],
    });
    expect(asked.inputs.map((input) => input.variables)).toEqual([{ text: 'from a cell' }]);
  });

  it('lists experiments newest first, by agent; an unknown id is a 404', async () => {
    const list = await gateway.experiments.list({ agent_id: 'support', limit: 2 });
    expect(list.data).toHaveLength(2);
    expect(list.data[0]!.id > list.data[1]!.id).toBe(true);
    expect(list.next_cursor).toBe(list.data[1]!.id);
    await expect(gateway.experiments.get('exp_nope')).rejects.toMatchObject({
      status: 404,
      code: 'experiment_not_found',
    });
    await expect(gateway.experiments.create({ agent_id: 'support', colour: 'red' } as never)).rejects.toMatchObject({
      status: 400,
      param: 'colour',
    });
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteSink } from '../../src/entries/stores.ts';
import { createGateway } from '../../src/index.ts';
import { gatedSimulator, inputs, PROMPT, releaseUntil } from './gated-simulator.ts';

const directory = mkdtempSync(join(tmpdir(), 'experiment-runs-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('running experiments', () => {
  it('calls at most `concurrency` cells at once; an abort leaves the rest pending for the next run', async () => {
    const gated = gatedSimulator();
    const gateway = createGateway({ mock: gated.simulator });
    const experiment = await gateway.experiments.create({
      agent_id: 'support',
      versions: [{ model: 'gpt-4o-mini', messages: PROMPT }],
      inputs: inputs(9),
    });
    const abort = new AbortController();
    const run = gateway.experiments.run(experiment.id, { concurrency: 3, signal: abort.signal });
    await expect.poll(gated.waiting).toBe(3);
    expect((await gateway.experiments.get(experiment.id)).status).toBe('running');
    gated.releaseAll();
    await expect.poll(gated.waiting).toBe(3);
    abort.abort();
    gated.releaseAll();
    const stopped = await run;
    expect(gated.most()).toBe(3);
    // The three in flight end answered or pending (as the abort reached them); the three never started are given back.
    const statuses = stopped.cells.map((cell) => cell.status);
    const completed = statuses.filter((status) => status === 'completed').length;
    expect(completed).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((status) => status === 'pending')).toHaveLength(9 - completed);
    expect(stopped.summaries[0]!.pending).toBe(9 - completed);
    expect(gated.simulator.calls).toHaveLength(6);
    expect(stopped.status).toBe('idle');
    // The next run calls for the cells not answered, and for them only.
    const next = gateway.experiments.run(experiment.id, { concurrency: 32 });
    await expect.poll(gated.waiting).toBe(9 - completed);
    gated.releaseAll();
    const finished = await next;
    expect(finished.status).toBe('completed');
    expect(finished.summaries[0]).toMatchObject({ completed: 9, failed: 0, pending: 0 });
    await gateway.close();
  });

  it('waits in get for a running experiment, up to wait_ms', async () => {
    const gated = gatedSimulator();
    const gateway = createGateway({ mock: gated.simulator });
    const { id } = await gateway.experiments.create({
      agent_id: 'support',
      versions: [{ model: 'gpt-4o-mini', messages: PROMPT }],
      inputs: inputs(2),
    });
    const run = gateway.experiments.run(id);
    await expect.poll(gated.waiting).toBe(2);
    expect((await gateway.experiments.get(id, { wait_ms: 50 })).status).toBe('running');
    const waited = gateway.experiments.get(id, { wait_ms: 10_000 });
    gated.releaseAll();
    expect((await waited).status).toBe('completed');
    await run;
    await gateway.close();
  });

  it('fails a cell alone (named error), reruns failed cells only with retry_failed', async () => {
    const gateway = createGateway({ mock: true });
    const experiment = await gateway.experiments.create({
      agent_id: 'support',
      versions: [
        { model: 'gpt-4o-mini', messages: PROMPT },
        { model: 'not-a-model-anyone-knows', messages: PROMPT },
      ],
      inputs: inputs(2),
    });
    const ran = await gateway.experiments.run(experiment.id);
    expect(ran.cells.map((cell) => cell.status)).toEqual(['completed', 'completed', 'failed', 'failed']);
    expect(ran.cells[2]!.error).toMatchObject({ code: 'model_not_found' });
    expect(ran.cells[2]!.error!.message).toContain('not-a-model-anyone-knows');
    expect(ran.summaries[1]).toMatchObject({ completed: 0, failed: 2, pending: 0 });
    const failedAt = ran.cells[2]!.updated_at;
    expect((await gateway.experiments.run(experiment.id)).cells[2]!.updated_at).toBe(failedAt);
    const retried = await gateway.experiments.run(experiment.id, { retry_failed: true });
    expect(retried.cells[2]!.updated_at).not.toBe(failedAt);
    await gateway.close();
  });

  it('stores experiments in the SQLite file; two gateways running one experiment call each cell once', async () => {
    const file = join(directory, 'calls.sqlite');
    const one = gatedSimulator();
    const two = gatedSimulator();
    const first = createGateway({ mock: one.simulator, records: { sinks: [new SqliteSink(file)] } });
    const second = createGateway({ mock: two.simulator, records: { sinks: [new SqliteSink(file)] } });
    const experiment = await first.experiments.create({
      agent_id: 'support',
      versions: [{ model: 'gpt-4o-mini', messages: PROMPT }],
      inputs: inputs(6),
    });
    const runs = Promise.all([first.experiments.run(experiment.id), second.experiments.run(experiment.id)]);
    // One run claims the cells, the other finds them claimed; answers are let go until both runs end.
    await releaseUntil(runs, [one, two]);
    expect(one.simulator.calls.length + two.simulator.calls.length).toBe(6);
    const seen = await second.experiments.get(experiment.id);
    expect(seen.summaries[0]).toMatchObject({ completed: 6 });
    await first.close();
    await second.close();
    const reopened = createGateway({ mock: true, records: { sinks: [new SqliteSink(file)] } });
    expect((await reopened.experiments.get(experiment.id)).cells).toHaveLength(6);
    await reopened.close();
  });

  it('applies the caller’s rules: agents it acts as, experiments it reads, calls it copies', async () => {
    const gateway = createGateway({ mock: true });
    await gateway.createCompletion({
      model: 'gpt-4o-mini',
      messages: PROMPT,
      input: { word: 'mine' },
      metadata: { agent_id: 'support', api_key_id: 'key_a' },
    });
    await gateway.createCompletion({
      model: 'gpt-4o-mini',
      messages: PROMPT,
      input: { word: 'theirs' },
      metadata: { agent_id: 'support', api_key_id: 'key_b' },
    });
    const caller = {
      keyId: 'key_a',
      mayUseAgent: (agent: string) => agent === 'support',
      mayRead: (header: { author: string | null }) => header.author === 'key_a',
      callScope: async () => ({ api_key_ids: ['key_a'] }),
      experimentScope: async () => ({ api_key_ids: ['key_a'] }),
    };
    await expect(gateway.experiments.create({ agent_id: 'billing' }, caller)).rejects.toMatchObject({ status: 403 });
    const mine = await gateway.experiments.create({ agent_id: 'support', inputs: [{ from_calls: {} }] }, caller);
    expect(mine.author).toBe('key_a');
    expect(mine.inputs.map((input) => input.variables)).toEqual([{ word: 'mine' }]);
    const theirs = await gateway.experiments.create({ agent_id: 'support' });
    await expect(gateway.experiments.get(theirs.id, {}, caller)).rejects.toMatchObject({ status: 404 });
    await expect(gateway.experiments.run(theirs.id, {}, caller)).rejects.toMatchObject({ status: 404 });
    expect((await gateway.experiments.list({}, caller)).data.map((header) => header.id)).toEqual([mine.id]);
    await gateway.close();
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteSink } from '../../src/entries/stores.ts';
import { emptyCell } from '../../src/experiments/experiment.ts';
import { ExperimentBudget } from '../../src/experiments/experiment-budget.ts';
import { MemoryExperimentStore } from '../../src/experiments/experiment-stores.ts';
import { createGateway, type Gateway } from '../../src/index.ts';
import { MockProvider } from '../../src/testing/index.ts';
import { gatedSimulator, inputs, PROMPT, releaseUntil } from './gated-simulator.ts';

const directory = mkdtempSync(join(tmpdir(), 'experiment-budget-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Cells of the experiment skipped so far (each for want of budget). */
async function skippedIn(gateway: Gateway, id: string): Promise<number> {
  return (await gateway.experiments.get(id)).cells.filter((cell) => cell.status === 'skipped').length;
}

describe('the budget of an experiment', () => {
  it('never spends past budget_usd: a cell whose worst cost could pass it is skipped, named', async () => {
    const simulator = new MockProvider();
    const gateway = createGateway({ mock: simulator });
    // gpt-4o: $2.50 / $10 per million; 100 output tokens at most → about $0.001 a cell at worst, $0.00016 spent.
    const experiment = await gateway.experiments.create({
      agent_id: 'support',
      budget_usd: 0.0015,
      versions: [{ model: 'gpt-4o', messages: PROMPT, max_completion_tokens: 100 }],
      inputs: inputs(5),
    });
    const ran = await gateway.experiments.run(experiment.id, { concurrency: 1 });
    const skipped = ran.cells.filter((cell) => cell.status === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    expect(ran.cells.filter((cell) => cell.status === 'completed').length).toBeGreaterThan(0);
    expect(skipped[0]!.error).toMatchObject({ type: 'insufficient_quota', code: 'budget_exceeded' });
    expect(skipped[0]!.error!.message).toMatch(/max_completion_tokens/);
    expect(ran.spent_usd).toBeLessThanOrEqual(0.0015);
    expect(simulator.calls).toHaveLength(ran.cells.length - skipped.length);
    // Without a bound on its output, one cell's worst cost passes the budget: nothing is called.
    const unbounded = await gateway.experiments.create({
      agent_id: 'support',
      budget_usd: 0.0025,
      versions: [{ model: 'gpt-4o', messages: PROMPT }],
      inputs: inputs(1),
    });
    expect((await gateway.experiments.run(unbounded.id)).cells[0]!.status).toBe('skipped');
    await gateway.close();
  });

  it('holds the worst of every model a cell may reach (its fallbacks) against the budget', async () => {
    const gateway = createGateway({ mock: true });
    // At most 100 output tokens: gpt-4o-mini's worst is ~$0.00006, gpt-4o's ~$0.001.
    const experiment = await gateway.experiments.create({
      agent_id: 'support',
      budget_usd: 0.0005,
      versions: [
        { model: 'gpt-4o-mini', messages: PROMPT, max_completion_tokens: 100, label: 'alone' },
        { model: 'gpt-4o-mini', messages: PROMPT, max_completion_tokens: 100, fallbacks: ['gpt-4o'], label: 'or 4o' },
      ],
      inputs: inputs(1),
    });
    const ran = await gateway.experiments.run(experiment.id);
    expect(ran.cells.map((cell) => [cell.status, cell.error?.code ?? null])).toEqual([
      ['completed', null],
      ['skipped', 'budget_exceeded'],
    ]);
    await gateway.close();
  });

  it('two runs of one budgeted experiment (two gateways, one SQLite file) spend within it together', async () => {
    const file = join(directory, 'budget.sqlite');
    const one = gatedSimulator();
    const two = gatedSimulator();
    const first = createGateway({ mock: one.simulator, records: { sinks: [new SqliteSink(file)] } });
    const second = createGateway({ mock: two.simulator, records: { sinks: [new SqliteSink(file)] } });
    // gpt-4o, 100 output tokens at most: ~$0.001 held a cell, ~$0.00016 spent; room for 3 cells in flight at once.
    const version = { model: 'gpt-4o', messages: PROMPT, max_completion_tokens: 100 };
    const experiment = await first.experiments.create({
      agent_id: 'support',
      budget_usd: 0.0035,
      versions: [version],
      inputs: inputs(4),
    });
    const runFirst = first.experiments.run(experiment.id, { concurrency: 2 });
    await expect.poll(one.waiting).toBe(2);
    await second.experiments.addInputs(experiment.id, inputs(8).slice(4));
    const runSecond = second.experiments.run(experiment.id, { concurrency: 4 });
    // The second run sees the first's two calls in flight: it starts only what fits beside them, one of its four
    // cells, and skips the others (it does not wait for room).
    await expect.poll(two.waiting).toBe(1);
    await expect.poll(() => skippedIn(first, experiment.id)).toBe(3);
    expect(two.waiting()).toBe(1);
    await releaseUntil(Promise.all([runFirst, runSecond]), [one, two]);
    const done = await first.experiments.get(experiment.id);
    expect(done.spent_usd).toBeLessThanOrEqual(0.0035);
    expect(done.cells.filter((cell) => cell.status === 'completed').length).toBeGreaterThanOrEqual(3);
    await first.close();
    await second.close();
  });

  it('two runs started together hold no more than the budget between them', async () => {
    const file = join(directory, 'budget-at-once.sqlite');
    const one = gatedSimulator();
    const two = gatedSimulator();
    const first = createGateway({ mock: one.simulator, records: { sinks: [new SqliteSink(file)] } });
    const second = createGateway({ mock: two.simulator, records: { sinks: [new SqliteSink(file)] } });
    // ~$0.00105 held a cell (gpt-4o, 100 output tokens at most): room for two in flight, not three.
    const version = { model: 'gpt-4o', messages: PROMPT, max_completion_tokens: 100 };
    const { id } = await first.experiments.create({
      agent_id: 'support',
      budget_usd: 0.0026,
      versions: [version],
      inputs: inputs(4),
    });
    const setup = await second.experiments.addInputs(id, inputs(8).slice(4));
    expect(setup.inputs).toHaveLength(8);
    const runs = Promise.all([
      first.experiments.run(id, { concurrency: 4 }),
      second.experiments.run(id, { concurrency: 4 }),
    ]);
    // Every cell is decided: in flight, or skipped for want of budget.
    await expect.poll(async () => (await skippedIn(first, id)) + one.waiting() + two.waiting()).toBe(8);
    expect(one.waiting() + two.waiting()).toBeLessThanOrEqual(2);
    await releaseUntil(runs, [one, two]);
    expect(one.most() + two.most()).toBeLessThanOrEqual(2);
    expect((await first.experiments.get(id)).spent_usd).toBeLessThanOrEqual(0.0026);
    await first.close();
    await second.close();
  });

  it('admits cells asked at once against one reading of the store, however slow the store answers', async () => {
    // A store answering on a later turn, as PostgreSQL does (and every engine's store, through one interface).
    const store = new MemoryExperimentStore();
    const spending = store.spending.bind(store);
    store.spending = async (id, staleBefore) => {
      await new Promise((resolve) => setImmediate(resolve));
      return spending(id, staleBefore);
    };
    const header = {
      id: 'exp_slow',
      agent_id: 'a',
      title: 't',
      description: null,
      budget_usd: 0.0035,
      author: null,
      created_at: new Date().toISOString(),
    };
    await store.create(header);
    // Another run's two calls in flight hold $0.002: room for one more cell of $0.001 here, not four.
    for (const id of ['theirs-1', 'theirs-2'])
      await store.putCell('exp_slow', {
        ...emptyCell({ id, experiment_id: 'exp_slow', version_id: 'v', input_id: id, status: 'running', key: id }),
        held_usd: 0.001,
      });
    const services = { store, complete: async () => Promise.reject(new Error('not called')), worstCost: () => 0.001 };
    const budget = new ExperimentBudget(services, header, new Set(['a', 'b', 'c', 'd']));
    const refusals = await Promise.all(['a', 'b', 'c', 'd'].map((id) => budget.refusal(id, 0.001)));
    expect(refusals.filter((refusal) => refusal === undefined)).toHaveLength(1);
  });

  it('confirms a held cell against all holds in the store: the last of those held at once backs off', async () => {
    const store = new MemoryExperimentStore();
    const header = {
      id: 'exp_1',
      agent_id: 'a',
      title: 't',
      description: null,
      budget_usd: 0.0025,
      author: null,
      created_at: new Date().toISOString(),
    };
    await store.create(header);
    const running = (id: string, held: number) => ({
      ...emptyCell({ id, experiment_id: 'exp_1', version_id: 'v', input_id: id, status: 'running', key: id }),
      held_usd: held,
    });
    const services = {
      store,
      complete: async () => {
        throw new Error('not called');
      },
      worstCost: () => 0.001,
    };
    await store.putCell('exp_1', running('mine', 0.001));
    await store.putCell('exp_1', running('another run’s', 0.001));
    expect(await new ExperimentBudget(services, header, new Set(['mine'])).confirm('mine')).toBeUndefined();
    await store.putCell('exp_1', running('a third, held at the same time', 0.001));
    expect(await new ExperimentBudget(services, header, new Set(['mine'])).confirm('mine')).toMatch(
      /calls in flight \(on every replica\) may cost \$0\.003000 more, past its \$0\.0025 budget/,
    );
  });
});

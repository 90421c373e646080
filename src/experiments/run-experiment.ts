import type { CompletionOptions } from '../completion/resolve-request.ts';
import { SwitchyardError } from '../errors.ts';
import { breather } from '../internal/breathing.ts';
import { normalizeUsage } from '../records/compute-cost.ts';
import { compileSchema } from '../structured-output/json-schema-validator.ts';
import { parseModelJson } from '../structured-output/parse-model-json.ts';
import type { CompletionRequest, CompletionResponse } from '../types.ts';
import {
  cellId,
  DEFAULT_CONCURRENCY,
  type ExperimentCell,
  type ExperimentHeader,
  type ExperimentInput,
  type ExperimentVersion,
  emptyCell,
  staleBefore,
} from './experiment.ts';
import { ExperimentBudget } from './experiment-budget.ts';
import { cellRequest, contentKey } from './experiment-parts.ts';
import { spentOf } from './experiment-results.ts';
import type { ExperimentStore } from './experiment-store.ts';
import type { RunExperimentOptions } from './experiments-api.ts';

export interface CellServices {
  store: ExperimentStore;
  complete(request: CompletionRequest, options: CompletionOptions): Promise<CompletionResponse>;
  /** The most a request may cost in USD (worst case: every output token it may produce), 0 when not priced. */
  worstCost(request: CompletionRequest): number;
}

/**
 * Runs the experiment's missing cells, `concurrency` at a time. Every cell to run is claimed in the store first (so
 * that two runs, even on two replicas, never call for one cell twice, and any replica sees the experiment running
 * from then on); claims not yet started are renewed while they wait and given back as pending if the run is
 * aborted. Each cell is then reused from an identical earlier cell when there is one, skipped when its worst cost
 * could take the experiment past its budget, else called through the gateway.
 */
export async function runCells(
  services: CellServices,
  header: ExperimentHeader,
  options: RunExperimentOptions,
  callOptions: () => CompletionOptions,
  slot?: CallSlot,
): Promise<void> {
  const { store } = services;
  const [versions, inputs, cells] = await Promise.all([
    store.versions(header.id),
    store.inputs(header.id),
    store.cells(header.id),
  ]);
  const stored = new Map(cells.map((cell) => [cell.id, cell]));
  const wanted = versions.flatMap((version) =>
    inputs.flatMap((input) => {
      const cell = stored.get(cellId(version.id, input.id));
      const missing = !cell || cell.status === 'pending' || cell.status === 'skipped' || cell.status === 'running';
      return missing || (cell.status === 'failed' && options.retry_failed) ? [claimOf(header, version, input)] : [];
    }),
  );
  const stale = staleBefore();
  const waiting = new Map<string, Claim>();
  const breathe = breather();
  for (const claim of wanted) {
    if (await store.claimCell(header.id, claim.cell, stale)) waiting.set(claim.cell.id, claim);
    await breathe();
  }
  options.onClaimed?.();
  const renew = setInterval(() => void renewClaims(store, header.id, waiting), RENEW_CLAIMS_MS);
  renew.unref?.();
  const budget = new ExperimentBudget(services, header, new Set(waiting.keys()));
  budget.spent = spentOf(cells);
  const queue = [...waiting.values()];
  const stop: { error?: unknown } = {};
  let next = 0;
  const worker = async () => {
    while (next < queue.length && !options.signal?.aborted && stop.error === undefined) {
      const claim = queue[next++]!;
      waiting.delete(claim.cell.id);
      await runCell(services, { ...claim, header, budget, options, callOptions, slot, stop });
      // Reused cells and a provider answering at once never leave the microtask queue: other requests get a turn.
      await breathe();
    }
  };
  try {
    const concurrency = Math.max(1, Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, queue.length));
    await Promise.all(Array.from({ length: concurrency }, worker));
    if (stop.error !== undefined) throw stop.error;
  } finally {
    clearInterval(renew);
    // An aborted run gives its unstarted cells back: pending, for the next run (here or on another replica).
    const updated_at = new Date().toISOString();
    for (const { cell } of waiting.values()) {
      await store.putCell(header.id, { ...cell, status: 'pending', updated_at });
      await breathe();
    }
  }
}

/** Claims waiting in a long run are renewed this often, well within `STALE_RUN_MS`. */
const RENEW_CLAIMS_MS = 60_000;

interface Claim {
  version: ExperimentVersion;
  input: ExperimentInput;
  cell: ExperimentCell;
}

/** The cell a run claims: `running`, empty, stamped now. */
function claimOf(header: ExperimentHeader, version: ExperimentVersion, input: ExperimentInput): Claim {
  const cell = emptyCell({
    id: cellId(version.id, input.id),
    experiment_id: header.id,
    version_id: version.id,
    input_id: input.id,
    status: 'running',
    key: contentKey([version.key, input.key]),
  });
  return { version, input, cell };
}

async function renewClaims(store: ExperimentStore, experimentId: string, waiting: Map<string, Claim>) {
  const updated_at = new Date().toISOString();
  const breathe = breather();
  for (const claim of waiting.values()) {
    claim.cell = { ...claim.cell, updated_at };
    await store.putCell(experimentId, claim.cell).catch(() => undefined);
    await breathe();
  }
}

/**
 * Waits until the caller may make one more call (a `serve` key's rate and slots) and checks it still may (not
 * revoked); resolves to the function giving the slot back. A rejection stops the run.
 */
export type CallSlot = (signal?: AbortSignal) => Promise<() => void>;

interface CellJob extends Claim {
  header: ExperimentHeader;
  slot: CallSlot | undefined;
  /** The first reason a cell could not be called for the caller: the run stops there. */
  stop: { error?: unknown };
  budget: ExperimentBudget;
  options: RunExperimentOptions;
  /** The cell's call as the caller's (its key's limits as they stand once the cell's slot is taken). */
  callOptions: () => CompletionOptions;
}

async function runCell(services: CellServices, job: CellJob): Promise<void> {
  const { store } = services;
  const { header, version, input, budget, options } = job;
  const base = { ...job.cell, updated_at: new Date().toISOString() };
  const { id } = base;
  const earlier = options.reuse === false ? null : await reusable(store, header, base);
  if (earlier) {
    await store.putCell(header.id, {
      ...earlier.cell,
      id,
      version_id: version.id,
      input_id: input.id,
      reused_from: earlier.from,
      updated_at: new Date().toISOString(),
    });
    return;
  }

  const request = cellRequest(header, version, input, id);
  const worst = services.worstCost(request);
  const refusal = await budget.refusal(id, worst);
  if (refusal) {
    await store.putCell(header.id, { ...skipped(base, refusal), updated_at: new Date().toISOString() });
    return;
  }
  let giveBack: () => void;
  try {
    giveBack = job.slot ? await job.slot(options.signal) : () => undefined;
  } catch (error) {
    budget.release(worst);
    job.stop.error ??= error;
    await store.putCell(header.id, { ...base, status: 'pending', updated_at: new Date().toISOString() });
    return;
  }
  const started = performance.now();
  try {
    // Stored with the cell while its call is in flight, then the budget checked again with every run's holds.
    await store.putCell(header.id, { ...base, held_usd: worst, updated_at: new Date().toISOString() });
    const over = await budget.confirm(id);
    if (over) {
      await store.putCell(header.id, { ...skipped(base, over), updated_at: new Date().toISOString() });
      return;
    }
    const response = await services.complete(request, withSignal(job.callOptions(), options.signal));
    const answered = answeredCell(base, version, response, performance.now() - started);
    await store.putCell(header.id, answered);
    budget.spent += answered.cost_usd ?? 0;
  } catch (error) {
    // Cells not yet answered when the run is aborted go back to pending, to be run next time.
    const aborted = options.signal?.aborted === true;
    await store.putCell(header.id, {
      ...base,
      status: aborted ? 'pending' : 'failed',
      latency_ms: Math.round(performance.now() - started),
      error: aborted ? null : errorOf(error),
      updated_at: new Date().toISOString(),
    });
  } finally {
    giveBack();
    budget.release(worst);
  }
}

/**
 * A completed cell with the same key: of this experiment (two identical versions), else an earlier experiment. Each
 * looked up by its key (an index), never by reading the experiment's cells: a run of n cells stays O(n).
 */
async function reusable(
  store: ExperimentStore,
  header: ExperimentHeader,
  cell: ExperimentCell,
): Promise<{ cell: ExperimentCell; from: string } | undefined> {
  const own = await store.completedCell(header.id, cell.key);
  if (own) return { cell: own, from: own.reused_from ?? `${header.id}/${own.id}` };
  const where = { agentId: header.agent_id, author: header.author, exceptExperiment: header.id };
  const found = await store.findCompletedCell(cell.key, where);
  return found ? { cell: found, from: found.reused_from ?? `${found.experiment_id}/${found.id}` } : undefined;
}

function answeredCell(
  base: ExperimentCell,
  version: ExperimentVersion,
  response: CompletionResponse,
  elapsedMs: number,
): ExperimentCell {
  const message = response.choices[0]?.message;
  const content = message?.content ?? null;
  const schema = version.content.output_schema?.json_schema;
  let parsed: unknown = null;
  let valid: boolean | null = null;
  if (schema && content !== null) {
    parsed = message?.parsed ?? parseModelJson(content)?.value ?? null;
    valid = parsed !== null && compileSchema(schema).validate(parsed);
  }
  const usage = response.usage;
  return {
    ...base,
    status: 'completed',
    call_id: response.switchyard.call_id,
    output: content ?? (message?.tool_calls ? JSON.stringify(message.tool_calls) : null),
    parsed,
    valid,
    cost_usd: response.switchyard.cost_usd,
    latency_ms: Math.round(elapsedMs),
    usage: usage ? normalizeUsage(usage) : null,
    updated_at: new Date().toISOString(),
  };
}

function errorOf(error: unknown): ExperimentCell['error'] {
  if (error instanceof SwitchyardError) return { type: error.type, code: error.code ?? null, message: error.message };
  return { type: 'api_error', code: null, message: error instanceof Error ? error.message : String(error) };
}

function withSignal(options: CompletionOptions, signal: AbortSignal | undefined): CompletionOptions {
  return signal ? { ...options, signal } : options;
}

/** A cell not called because its worst cost could take the experiment past its budget. */
function skipped(cell: ExperimentCell, message: string): ExperimentCell {
  return { ...cell, status: 'skipped', error: { type: 'insufficient_quota', code: 'budget_exceeded', message } };
}

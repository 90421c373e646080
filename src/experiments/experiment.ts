import type { DeploymentVersion } from '../deployments/deployment.ts';
import type { CallQueryFilter } from '../records/call-query-schema.ts';
import type { RecordUsage } from '../records/call-record.ts';
import type { ChatCompletionMessageParam } from '../types.ts';

/**
 * An experiment: one agent's versions × inputs, each cell one call of the gateway. See docs/experiments.md.
 *
 * What a caller writes (`ExperimentVersionInput`, `ExperimentInputInput`) is resolved once, when added, into what is
 * stored (`ExperimentVersion`, `ExperimentInput`): a deployment is read and pinned, recorded calls are read and
 * their inputs copied, so that running the experiment later sends exactly what was shown when it was made.
 */

/** What a version runs: a deployment's version (model, prompt, settings, output schema) as data. */
export type VersionContent = DeploymentVersion;

/** A version as written: a deployment, an agent's newest deployment of an environment, or inline. */
export type ExperimentVersionInput =
  | { deployment_id: string; overrides?: Partial<VersionContent>; label?: string }
  | { environment: 'production' | 'staging' | 'dev'; overrides?: Partial<VersionContent>; label?: string }
  | (VersionContent & { label?: string });

/** A version as stored: its content resolved and pinned. */
export interface ExperimentVersion {
  /** `ver_` + a UUIDv7. */
  id: string;
  /** Shown as the column's title: the caller's, else the deployment id, else the model. */
  label: string;
  /** The deployment it came from (before overrides), or `null` for an inline version. */
  deployment_id: string | null;
  /** Exactly what each of its cells sends (with the input's variables and messages). */
  content: VersionContent;
  /** SHA-256 of the canonical JSON of `content`: identical versions have the same key. */
  key: string;
  created_at: string;
}

/** Which recorded calls become inputs: a call query's filter, the newest `limit` of them, duplicates dropped. */
export interface CallSample {
  filter?: CallQueryFilter;
  /** How many inputs to take (default 10, at most 100). */
  limit?: number;
}

/** An input as written: variables and/or messages, or recorded calls to copy them from. */
export type ExperimentInputInput =
  | { variables?: Record<string, unknown>; messages?: ChatCompletionMessageParam[]; label?: string }
  | { from_calls: CallSample };

/** An input as stored. */
export interface ExperimentInput {
  /** `inp_` + a UUIDv7. */
  id: string;
  label: string | null;
  /** Fills the version's `{{variables}}`; `null`: none. */
  variables: Record<string, unknown> | null;
  /** Sent after the version's own messages; `[]`: none. */
  messages: ChatCompletionMessageParam[];
  /** The recorded call it was copied from, if any. */
  source_call_id: string | null;
  /** SHA-256 of the canonical JSON of variables and messages. */
  key: string;
  created_at: string;
}

export type CellStatus = 'pending' | 'running' | 'completed' | 'failed' | 'skipped';

/** One version run on one input. */
export interface ExperimentCell {
  /** `<version id>.<input id>`: what an annotation on the cell targets. */
  id: string;
  experiment_id: string;
  version_id: string;
  input_id: string;
  status: CellStatus;
  /** SHA-256 of the version key and the input key: identical cells share it (reuse). */
  key: string;
  /** The call that answered (its record), or `null`. A reused cell names the call of the cell it reused. */
  call_id: string | null;
  /** The cell this one was copied from instead of calling (`<experiment id>/<cell id>`), or `null`. */
  reused_from: string | null;
  /** The answer's text (the JSON text for a structured output). */
  output: string | null;
  /** The structured output parsed, when the version has an output schema and the text parsed. */
  parsed: unknown;
  /** Against the version's output schema: `true`/`false`; `null` without a schema or an answer. */
  valid: boolean | null;
  /** `null` when the price is not known or nothing was billed. */
  cost_usd: number | null;
  latency_ms: number | null;
  usage: RecordUsage | null;
  /** While its call is in flight: the most it may cost, held against the budget by every run (a replica's too). */
  held_usd?: number;
  /** Why it failed or was skipped (`budget_exceeded`). */
  error: { type: string; code: string | null; message: string } | null;
  updated_at: string;
}

/** Which cell it is, and where it stands. */
export type CellIdentity = Pick<ExperimentCell, 'id' | 'experiment_id' | 'version_id' | 'input_id' | 'status' | 'key'>;

/** A cell nothing has answered yet: no call, no answer, no cost, stamped `updatedAt` (default now). */
export function emptyCell(identity: CellIdentity, updatedAt = new Date().toISOString()): ExperimentCell {
  return {
    ...identity,
    call_id: null,
    reused_from: null,
    output: null,
    parsed: null,
    valid: null,
    cost_usd: null,
    latency_ms: null,
    usage: null,
    error: null,
    updated_at: updatedAt,
  };
}

/** An experiment as stored (its versions, inputs and cells are kept as rows of their own). */
export interface ExperimentHeader {
  /** `exp_` + a UUIDv7. */
  id: string;
  agent_id: string;
  title: string;
  description: string | null;
  /** The most its cells may cost together, in USD; `null`: no limit. */
  budget_usd: number | null;
  /** The `serve` API key that created it (its id), or `null` in-process. */
  author: string | null;
  created_at: string;
}

/** Totals of one version over its cells. */
export interface VersionSummary {
  version_id: string;
  cells: number;
  completed: number;
  failed: number;
  /** Not called: their worst cost could have taken the experiment past its budget. */
  skipped: number;
  /** Not yet ended: never run, pending after an abort, or running. */
  pending: number;
  /** Completed cells whose structured output matched the schema (`null` without a schema). */
  valid: number | null;
  cost_usd: number;
  /** Completed cells whose cost is not known. */
  unpriced: number;
  latency_ms: { p50: number | null; p90: number | null; p99: number | null };
  prompt_tokens: number;
  completion_tokens: number;
  /** Average of each metric annotated on this version's cells, by metric name. */
  metrics: Record<string, { average: number; count: number }>;
}

/** For one input, the fields of the structured outputs whose values differ between versions. */
export interface FieldComparison {
  input_id: string;
  /** Dotted paths (`items.0.price`) whose values are not the same in every completed cell of the input. */
  differing: string[];
  /** Paths present and equal in every completed cell. */
  same: string[];
}

export interface ExperimentAnnotationSummary {
  id: string;
  cell_id: string;
  key_path: string | null;
  text: string | null;
  metric: { name: string; value: number } | null;
  created_at: string;
}

/** What `get` returns: the experiment with its matrix and results. */
export interface Experiment extends ExperimentHeader {
  object: 'experiment';
  /** `running` while a cell is being called; `completed` once every cell has ended (answered, failed, skipped). */
  status: 'idle' | 'running' | 'completed';
  /** Spent by its cells (reused cells cost nothing again). */
  spent_usd: number;
  versions: ExperimentVersion[];
  inputs: ExperimentInput[];
  /** Every cell made so far, in version-then-input order. */
  cells: ExperimentCell[];
  summaries: VersionSummary[];
  comparisons: FieldComparison[];
  annotations: ExperimentAnnotationSummary[];
}

export interface ExperimentList {
  object: 'list';
  /** Newest first: headers only. */
  data: ExperimentHeader[];
  next_cursor: string | null;
}

/** A cell left `running` this long belongs to a run that died (a replica killed): it holds nothing, is claimed anew. */
export const STALE_RUN_MS = 15 * 60_000;

/** The time before which a `running` cell's stamp means its run died. */
export function staleBefore(now = Date.now()): string {
  return new Date(now - STALE_RUN_MS).toISOString();
}

export const MAX_VERSIONS = 20;
export const MAX_INPUTS = 500;
/**
 * The most an input holds: its variables and messages as JSON, in bytes. With `MAX_INPUTS`, an experiment's inputs
 * stay small enough to read whole on every `get` (a recorded call with a larger input is passed over by
 * `from_calls`; a larger input written is a 400).
 */
export const MAX_INPUT_BYTES = 64 * 1024;
export const DEFAULT_SAMPLE = 10;
export const MAX_SAMPLE = 100;
export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 32;

/** A cell's id from its version's and input's. */
export function cellId(versionId: string, inputId: string): string {
  return `${versionId}.${inputId}`;
}

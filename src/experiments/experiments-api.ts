import type { CompletionOptions } from '../completion/resolve-request.ts';
import type { CallQueryScope } from '../records/call-query.ts';
import type {
  Experiment,
  ExperimentHeader,
  ExperimentInputInput,
  ExperimentList,
  ExperimentVersionInput,
} from './experiment.ts';

/** What `create` takes. */
export interface CreateExperimentInput {
  agent_id: string;
  title?: string;
  description?: string;
  /** The most its cells may cost together, in USD: a cell that could take it past is skipped (`budget_exceeded`). */
  budget_usd?: number;
  versions?: ExperimentVersionInput[];
  inputs?: ExperimentInputInput[];
}

export interface RunExperimentOptions {
  /** Cells called at once (default 4, at most 32). */
  concurrency?: number;
  /** `false`: call again even when an identical cell (same version content and input) was answered before. */
  reuse?: boolean;
  /** Also run the cells that failed before (they are otherwise left as they are). */
  retry_failed?: boolean;
  /** Aborts the run: cells not yet answered go back to pending, for the next run. */
  signal?: AbortSignal;
  /**
   * Called once the run has claimed its cells (every replica sees them running from then on), before the first
   * is called: what a server waits for before answering that a run started.
   */
  onClaimed?: () => void;
}

export interface GetExperimentOptions {
  /** Waits up to this many milliseconds (at most 60,000) while the experiment is `running` (a cell being called). */
  wait_ms?: number;
}

/**
 * Who acts: a `switchyard serve` API key's rules, or nothing in-process (everything allowed). Built by the server
 * from `KeyAccess`, so every route and MCP tool applies the same rules.
 */
export interface ExperimentCaller {
  /** The key's id: the experiment's author; reuse looks only at experiments of the same author. */
  keyId?: string;
  /** Whether the caller may act as this agent (create, add, run). */
  mayUseAgent?(agentId: string): boolean;
  /** Whether the caller reads this experiment (its inputs come from calls, its outputs are answers). */
  mayRead?(header: ExperimentHeader): boolean | Promise<boolean>;
  /** Whether the caller changes this experiment it reads (adds versions or inputs, runs it). */
  mayChange?(header: ExperimentHeader): boolean | Promise<boolean>;
  /** The recorded calls the caller may copy inputs from. */
  callScope?(): Promise<CallQueryScope>;
  /** The experiments the caller lists (as a call query's scope: agents, or authors as `api_key_ids`). */
  experimentScope?(): Promise<CallQueryScope>;
  /**
   * Options each cell's call is made with: the key's access and attribution. Its access's models also bound the
   * versions that may be added (a version on another model is a 403 when it is added, as its cells would be).
   */
  callOptions?(): CompletionOptions;
  /**
   * Before each cell's call: waits until the key's rate and calls in flight allow one more, and checks the key is
   * still valid (a rejection, such as a 401 once it is revoked, stops the run; its cells stay pending). Resolves to
   * the function that gives the slot back.
   */
  callSlot?(signal?: AbortSignal): Promise<() => void>;
}

/** `gateway.experiments`: versions × inputs of one agent, run through the gateway. See docs/experiments.md. */
export interface Experiments {
  /** Creates an experiment (with versions and inputs, if given); does not run it. */
  create(input: CreateExperimentInput, caller?: ExperimentCaller): Promise<Experiment>;
  /** Adds versions (resolved and pinned now); returns the experiment. */
  addVersions(id: string, versions: ExperimentVersionInput[], caller?: ExperimentCaller): Promise<Experiment>;
  /** Adds inputs (recorded calls read now); returns the experiment. */
  addInputs(id: string, inputs: ExperimentInputInput[], caller?: ExperimentCaller): Promise<Experiment>;
  /** Runs every missing cell, at most `concurrency` at once, within the budget; resolves with the results. */
  run(id: string, options?: RunExperimentOptions, caller?: ExperimentCaller): Promise<Experiment>;
  /** The experiment with its cells, totals per version, field comparisons and annotations. 404 if not readable. */
  get(id: string, options?: GetExperimentOptions, caller?: ExperimentCaller): Promise<Experiment>;
  /** Experiments newest first, headers only. */
  list(
    query?: { agent_id?: string; limit?: number; cursor?: string },
    caller?: ExperimentCaller,
  ): Promise<ExperimentList>;
}

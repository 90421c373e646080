import type { CallQueryScope } from '../records/call-query.ts';
import type {
  ExperimentCell,
  ExperimentHeader,
  ExperimentInput,
  ExperimentList,
  ExperimentVersion,
} from './experiment.ts';

/** Which experiments a list returns: every condition given must hold. */
export interface ExperimentListQuery {
  agent_id?: string | undefined;
  /** Page size (default 50, at most 200). */
  limit: number;
  /** `next_cursor` of the previous page. */
  cursor?: string | undefined;
  /** Only these agents' experiments, or those these keys created (as a call query's scope). */
  scope: CallQueryScope;
}

/**
 * Where experiments live: beside the call records (the SQLite file, the PostgreSQL database) or in memory. A call
 * store offers its own (`CallStore.experimentStore`). Versions, inputs and cells are rows of their own, so two
 * replicas adding to one experiment never overwrite each other; the store keeps and returns, `gateway.experiments`
 * checks, resolves, runs and scopes.
 */
export interface ExperimentStore {
  create(header: ExperimentHeader): Promise<void>;
  /** The header, or `null`. */
  get(id: string): Promise<ExperimentHeader | null>;
  /** Headers newest first (ids are UUIDv7: by id descending), one page. */
  list(query: ExperimentListQuery): Promise<ExperimentList>;
  /**
   * Appends versions (ids new), unless the experiment would then hold more than `max`: then nothing is added.
   * Checked and written in one transaction, so two requests adding at once cannot pass `max` together.
   */
  addVersions(experimentId: string, versions: ExperimentVersion[], max?: number): Promise<Appended>;
  /** Appends inputs (ids new), as `addVersions`. */
  addInputs(experimentId: string, inputs: ExperimentInput[], max?: number): Promise<Appended>;
  /** How many versions and inputs the experiment holds, without reading them. */
  counts(experimentId: string): Promise<{ versions: number; inputs: number }>;
  /** Every version, in the order added (by id). */
  versions(experimentId: string): Promise<ExperimentVersion[]>;
  /** Every input, in the order added (by id). */
  inputs(experimentId: string): Promise<ExperimentInput[]>;
  /** Inserts or replaces a cell (by experiment id and cell id). */
  putCell(experimentId: string, cell: ExperimentCell): Promise<void>;
  /**
   * Claims a cell to run: stores it as given (status `running`) only when no cell of that id exists, or the one
   * stored is `pending`, `failed` or `skipped`, or `running` but last updated before `staleBefore` (a run that died).
   * Returns whether it was claimed: two replicas running one experiment never call for the same cell twice.
   */
  claimCell(experimentId: string, cell: ExperimentCell, staleBefore: string): Promise<boolean>;
  /** Every cell of the experiment. */
  cells(experimentId: string): Promise<ExperimentCell[]>;
  /** The first completed cell (by id) of the experiment with this key, or `null`: one indexed lookup. */
  completedCell(experimentId: string, key: string): Promise<ExperimentCell | null>;
  /**
   * What the experiment's cells spent (reused cells left out), and the holds of its cells in flight (`running`,
   * updated at or after `staleBefore`, with `held_usd`): a budget's check, from columns, not from every cell.
   */
  spending(experimentId: string, staleBefore: string): Promise<Spending>;
  /** How many of its cells are being called now (`running`, updated at or after `staleBefore`). */
  running(experimentId: string, staleBefore: string): Promise<number>;
  /**
   * The newest completed cell with this key among the experiments of `agentId` created by `author` (`null`: those
   * created in-process), other than in `exceptExperiment`; `null` when there is none.
   */
  findCompletedCell(
    key: string,
    where: { agentId: string; author: string | null; exceptExperiment: string },
  ): Promise<ExperimentCell | null>;
}

/** What an append did: `added` false when it would have passed its `max` (nothing added); `held`, the count before. */
export interface Appended {
  added: boolean;
  held: number;
}

export interface Spending {
  spent_usd: number;
  holds: Array<{ id: string; held_usd: number }>;
}

export const DEFAULT_EXPERIMENT_LIMIT = 50;
export const MAX_EXPERIMENT_LIMIT = 200;

/** Whether a header passes a list query (what the memory store runs, and the SQL stores compile). */
export function matchesExperimentQuery(header: ExperimentHeader, query: ExperimentListQuery): boolean {
  const { scope } = query;
  if (scope.agent_ids && !scope.agent_ids.includes(header.agent_id)) return false;
  if (scope.api_key_ids && (header.author === null || !scope.api_key_ids.includes(header.author))) return false;
  if (query.agent_id !== undefined && header.agent_id !== query.agent_id) return false;
  return query.cursor === undefined || header.id < query.cursor;
}

/** A page of `limit` headers from `limit + 1` fetched, newest first. */
export function experimentPage(rows: ExperimentHeader[], limit: number): ExperimentList {
  const more = rows.length > limit;
  const data = rows.slice(0, limit);
  return { object: 'list', data, next_cursor: more ? (data.at(-1)?.id ?? null) : null };
}

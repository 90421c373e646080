import type { CallAccess } from '../access/call-access.ts';
import type { BilledUsage } from '../records/compute-cost.ts';
import type { StreamSummary } from '../records/stream-recorder.ts';
import type { CompletionResponse, CompletionWarning, SwitchyardResponseInfo } from '../types.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import type { Candidate } from './plan-candidates.ts';

/**
 * The stages a feature plugs into the pipeline. The pipeline declares them here; the feature implements them
 * (`src/cache/`, `src/budgets/`) and the gateway hands them in with the services. The pipeline imports no feature, and
 * a feature reads the pipeline only through this file: the plan, the trace, a candidate.
 */
export type { CallPlan, CallTrace, Candidate };

/** The response cache, asked between planning and the budgets (`createGateway({ cache })`). */
export interface ResponseCacheStage {
  /**
   * The call's entry, or `undefined` when the cache is not for this call (then synchronously: no await on the common
   * path). What the cache could not do as the call asked is warned about on its trace.
   */
  lookUp(plan: CallPlan, trace: CallTrace): Promise<CacheLookup | undefined> | undefined;
  /** Releases its store, when the gateway closes. */
  close(): Promise<void>;
}

/** A call the cache may answer: the answer it holds (a hit), and how to store the call's own (a miss). */
export interface CacheLookup {
  readonly answer: CacheHit | undefined;
  /** Stores a non-streamed answer, off the request path. */
  rememberResponse(response: CompletionResponse): void;
  /** What stores a streamed answer, once its stream has ended without an error. */
  rememberStream(): (summary: StreamSummary, info: SwitchyardResponseInfo) => void;
}

/** An answer the cache holds: the completion as its caller got it (without `switchyard`), and who wrote it. */
export interface CacheHit {
  provider: string;
  provider_model: string;
  /** The catalog model that answered (a fallback's, when one did); absent in entries stored before it was kept. */
  model?: string | undefined;
  completion: Omit<CompletionResponse, 'switchyard'>;
  /** What the answering attempt could not take as asked: still true of the answer when it is served again. */
  warnings: CompletionWarning[];
}

/** The budgets (`createGateway({ budgets })`): a call is admitted with its worst cost held, settled when recorded. */
export interface BudgetStage {
  /**
   * Admits a completion: its worst cost at the dearest of `candidates` (the ones that may run), `requests` times (a
   * hedge may run two at once), held until its deadline. Rejects when a budget would be exceeded.
   */
  admitCall(
    plan: CallPlan,
    candidates: readonly Candidate[],
    requests: number,
    warn: (warning: CompletionWarning) => void,
  ): Promise<BudgetSettlement | undefined>;
  /** Admits another call (an embedding) whose worst cost its caller estimated, held until `deadlineAt`. */
  admit(
    payer: { metadata: Record<string, string>; access: CallAccess | undefined },
    worst: { usd: number; tokens: number },
    deadlineAt: number,
    warn: (warning: CompletionWarning) => void,
  ): Promise<BudgetSettlement | undefined>;
}

/** A call's hold on the budgets: settled once, with what the call paid (a failed call's too), when it is recorded. */
export type BudgetSettlement = (billed: readonly BilledUsage[]) => void;

import { MissingCredentialsError, ProviderError } from '../errors.ts';
import type { ProviderLookup } from '../providers/provider-pool.ts';
import type { Attempt, CompletionWarning, HedgeSetting } from '../types.ts';
import type { CallPlan } from './call-plan.ts';
import type { LatencyTracker } from './latency-tracker.ts';
import type { Candidate } from './plan-candidates.ts';
import { type AttemptOperation, type AttemptResult, movesOn, runAttempts } from './run-attempts.ts';

type HedgePlan = Parameters<typeof runAttempts>[1] & Pick<CallPlan, 'hedgeAfterMs' | 'access'>;

/** What the caller of `runHedged` does with what a hedge adds: the requests that lost, and its warnings. */
export interface HedgeOutcomes<T> {
  /** A losing try that was sent and is aborted: it read the prompt, which its provider bills (estimate it). */
  lost(candidate: Candidate): void;
  /** A losing try that answered anyway (before its abort took): close it, bill what it reported. */
  late(lost: AttemptResult<T>): void;
  warn(warning: CompletionWarning): void;
}

/**
 * Whether a call may send a hedge: the first candidate it will try has a hedge delay, and a later one can be sent
 * beside it. Such a call holds its budgets for two requests, as two run at once.
 */
export function hedgeMayRun(
  plan: Pick<CallPlan, 'hedgeAfterMs'>,
  candidates: ReadonlyArray<{ offering: { provider: string; model: string }; skip?: unknown }>,
): boolean {
  const first = candidates.findIndex((candidate) => candidate.skip === undefined);
  if (first < 0 || plan.hedgeAfterMs(candidates[first]!.offering) === undefined) return false;
  return candidates.some((candidate, index) => index > first && candidate.skip === undefined);
}

/**
 * Stage 3 with the call's `hedge`: the first candidate runs alone (with its retries) for its `hedgeAfterMs`; if it
 * has not produced content by then, the candidates after it start too, as a second run, once the caller's rate
 * allows one more request (`CallAccess.takeRequest`; else no hedge, said in a `hedge_not_sent` warning). The first
 * run to produce content wins and the other is aborted, its try in flight recorded as `hedge_lost` and handed to
 * `outcomes.lost` to be billed. A run that fails lets the other go on. Without a hedge, or with no second candidate
 * to send, it is `runAttempts`. At most one extra request runs at a time.
 */
export async function runHedged<T>(
  getProvider: ProviderLookup,
  plan: HedgePlan,
  candidates: readonly Candidate[],
  attempts: Attempt[],
  operation: AttemptOperation<T>,
  outcomes: HedgeOutcomes<T>,
): Promise<AttemptResult<T>> {
  if (!hedgeMayRun(plan, candidates)) return runAttempts(getProvider, plan, candidates, attempts, operation);
  const first = candidates.findIndex((candidate) => candidate.skip === undefined);
  const afterMs = plan.hedgeAfterMs(candidates[first]!.offering)!;
  const rest = candidates.slice(first + 1);

  const primary = new Lane<T>(candidates.slice(0, first + 1));
  const running = [primary.run(getProvider, plan, operation)];
  let timer: NodeJS.Timeout | undefined;
  const hedgeDue = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), afterMs)));
  const early = await Promise.race([running[0]!, hedgeDue]);
  clearTimeout(timer);
  const refused = early === undefined ? await hedgeRefused(plan) : undefined;
  if (refused) outcomes.warn(refused);
  if (early !== undefined || refused) {
    const ended = early ?? (await running[0]!);
    attempts.push(...primary.attempts);
    if ('result' in ended) return ended.result;
    // Failed before a hedge was sent: the rest run as the plain fallback they would have been.
    if (!goesOn(ended.error, plan)) throw withAttempts(ended.error, attempts);
    return runAttempts(getProvider, plan, rest, attempts, operation);
  }

  const backup = new Lane<T>(rest);
  running.push(backup.run(getProvider, plan, operation));
  let failure: unknown;
  for (let pending = [0, 1]; pending.length > 0; ) {
    const [index, ended] = await Promise.race(
      pending.map((lane) => running[lane]!.then((end) => [lane, end] as const)),
    );
    pending = pending.filter((lane) => lane !== index);
    const lanes = [primary, backup];
    if ('result' in ended) {
      for (const lane of pending) {
        const { attempts: theirs, inFlight } = lanes[lane]!.lose();
        attempts.push(...theirs);
        if (inFlight) outcomes.lost(inFlight);
        void running[lane]!.then((end) => {
          if ('result' in end) outcomes.late(end.result);
        });
      }
      attempts.push(...lanes[index]!.attempts);
      return ended.result;
    }
    attempts.push(...lanes[index]!.attempts);
    failure = ended.error;
  }
  throw withAttempts(failure, attempts);
}

/** Why the hedge is not sent: the caller's rate has no request left for it (a warning), or `undefined`. */
async function hedgeRefused(plan: HedgePlan): Promise<CompletionWarning | undefined> {
  try {
    await plan.access?.takeRequest?.();
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      code: 'hedge_not_sent',
      param: 'hedge',
      message: `The hedge was not sent: it is a request of its own, and the caller's rate has none left (${reason}).`,
    };
  }
}

const NEVER = (): undefined => undefined;

/**
 * The call's `hedge` as its plan holds it: for the first candidate's offering, how long it runs alone. A percentile
 * is of that offering's latest durations here; until there are enough of them, `afterMs` if given, else no hedge.
 */
export function hedgeDelay(setting: HedgeSetting | undefined, latency: LatencyTracker): CallPlan['hedgeAfterMs'] {
  if (!setting) return NEVER;
  if (!('percentile' in setting)) return () => setting.afterMs;
  const { percentile, afterMs } = setting;
  return ({ provider, model }) => latency.percentile(provider, model, percentile) ?? afterMs;
}

type LaneEnd<T> = { result: AttemptResult<T> } | { error: unknown };

/** One run of candidates in a hedged call, with its own attempts and a stop of its own (the caller's signal too). */
class Lane<T> {
  readonly attempts: Attempt[] = [];
  readonly #stop = new AbortController();
  readonly #candidates: readonly Candidate[];
  /** The latest try: who, to which candidate, since when, and how many attempts were recorded before it. */
  #latest: { provider: string; candidate: Candidate; started: number; recorded: number } | undefined;

  constructor(candidates: readonly Candidate[]) {
    this.#candidates = candidates;
  }

  run(getProvider: ProviderLookup, plan: HedgePlan, operation: AttemptOperation<T>): Promise<LaneEnd<T>> {
    const stop = this.#stop.signal;
    const signal = plan.signal ? AbortSignal.any([plan.signal, stop]) : stop;
    const tracked: AttemptOperation<T> = (provider, candidate, scope, sent) => {
      if (stop.aborted) throw stop.reason;
      this.#latest = { provider: provider.name, candidate, started: performance.now(), recorded: this.attempts.length };
      return operation(provider, candidate, scope, sent);
    };
    return runAttempts(getProvider, { ...plan, signal }, this.#candidates, this.attempts, tracked).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
  }

  /**
   * The other run won: this one is aborted. Its attempts so far, its try in flight as `hedge_lost`, and that try's
   * candidate (none between tries: a backoff sends nothing).
   */
  lose(): { attempts: Attempt[]; inFlight?: Candidate } {
    this.#stop.abort(new Error('Another hedged attempt produced content first.'));
    const latest = this.#latest;
    if (latest === undefined || this.attempts.length > latest.recorded) return { attempts: [...this.attempts] };
    const lost: Attempt = {
      provider: latest.provider,
      model: latest.candidate.offering.model,
      outcome: 'hedge_lost',
      message: 'Aborted: a hedged request to another candidate produced content first.',
      duration_ms: Math.round(performance.now() - latest.started),
    };
    return { attempts: [...this.attempts.slice(0, latest.recorded), lost], inFlight: latest.candidate };
  }
}

/** Whether a run of all the candidates would have gone on to the later ones after this failure of the first. */
function goesOn(error: unknown, plan: HedgePlan): boolean {
  if (plan.signal?.aborted) return false;
  if (error instanceof MissingCredentialsError) return true;
  return error instanceof ProviderError && (error.retryable || movesOn(error, plan.fallbackOn));
}

/** The failure with every attempt of the call (each run only knew its own). */
function withAttempts(error: unknown, attempts: Attempt[]): unknown {
  if (error instanceof ProviderError) return error.withAttempts(attempts);
  if (error instanceof Error && 'attempts' in error) Object.assign(error, { attempts });
  return error;
}

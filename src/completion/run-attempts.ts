import { InvalidRequestError, MissingCredentialsError, ProviderError } from '../errors.ts';
import { definedOnly } from '../internal/defined-only.ts';
import type { Provider } from '../providers/provider.ts';
import { deadlineExceeded } from '../providers/provider-errors.ts';
import type { ProviderLookup } from '../providers/provider-pool.ts';
import type { Attempt, CompletionWarning } from '../types.ts';
import { AttemptScope, expiredError } from './attempt-scope.ts';
import type { CallPlan } from './call-plan.ts';
import type { Candidate } from './plan-candidates.ts';
import type { ShapedRequest } from './shape-request.ts';

export interface RetryOptions {
  /** Retries of one provider after its first try, on retryable failures (default 2). */
  maxRetries?: number | undefined;
  /** First backoff delay; doubles each retry, with jitter (default 500 ms). */
  initialDelayMs?: number | undefined;
  /** Cap on one backoff delay, including a provider's retry-after (default 8 s). */
  maxDelayMs?: number | undefined;
  /**
   * Deadline of the whole call: every try of every candidate, the one in flight included, until the answer is
   * complete (for a stream: until its first content). Default 10 minutes, the per-attempt default.
   */
  totalTimeoutMs?: number | undefined;
  /**
   * Waits out one backoff (default: a timer, cut short when the call is aborted). A test hands in its clock's, to
   * see each wait the policy chose without spending it.
   */
  wait?: ((milliseconds: number, signal: AbortSignal | undefined) => Promise<void>) | undefined;
}

/** A retry policy with every option set. */
export type RetryPolicy = { readonly [Option in keyof RetryOptions]-?: Exclude<RetryOptions[Option], undefined> };

/** The gateway's retry policy unless its options say otherwise. */
export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  totalTimeoutMs: 600_000,
  wait: sleep,
};

/** `base` with the options given: one given as `undefined` keeps the base's value, as one left out does. */
export function retryPolicy(base: RetryPolicy, options: RetryOptions | undefined): RetryPolicy {
  return { ...base, ...definedOnly(options) };
}

/** What an attempt needs of a candidate: a model id (for messages) and the offering to call. */
export interface AttemptCandidate {
  model: { id: string };
  offering: { provider: string; model: string };
  /** Set when the candidate is not to be tried (`not_allowed`, `context_too_long`): recorded as such, skipped. */
  skip?: { outcome: string; message: string } | undefined;
}

export interface AttemptResult<T, C extends AttemptCandidate = Candidate> {
  value: T;
  candidate: C;
  /** What the answering attempt was sent, decided for its candidate (absent for operations that shape nothing). */
  shaped: ShapedRequest | undefined;
  /** The adapter that answered (the simulator's name in mock mode). */
  provider: string;
  /** The successful attempt's scope, settled (its deadline no longer runs); the caller disposes of it when done. */
  scope: AttemptScope;
}

/** One try at one candidate, inside the attempt's scope (whose signal the adapter must be handed). */
export type AttemptOperation<T, C extends AttemptCandidate = Candidate> = (
  provider: Provider,
  candidate: C,
  scope: AttemptScope,
  /** Called with each request shaped for the attempt: its decisions and warnings belong to the attempt. */
  sent: (shaped: ShapedRequest) => void,
) => Promise<T>;

/**
 * Stage 3: tries the candidates in order. Retryable failures are retried with exponential backoff and jitter
 * (honouring the provider's retry-after), then the next candidate is tried; a candidate without credentials is
 * skipped. A non-retryable failure ends the run at once, and so does the call's deadline, whose timer aborts an
 * attempt in flight. Every try is added to `attempts` (the call's trace); whatever escapes carries the whole chain.
 */
export async function runAttempts<T, C extends AttemptCandidate = Candidate>(
  getProvider: ProviderLookup,
  plan: Pick<CallPlan, 'retry' | 'signal' | 'deadlineAt'> & { fallbackOn?: CallPlan['fallbackOn'] },
  candidates: readonly C[],
  attempts: Attempt[],
  operation: AttemptOperation<T, C>,
): Promise<AttemptResult<T, C>> {
  const { retry: options, signal, deadlineAt } = plan;
  let lastError: ProviderError | undefined;
  /** What each provider skipped for its credentials lacks: `OPENAI_API_KEY`, or `X holds a line break…`. */
  const missing = new Set<string>();

  for (const candidate of candidates) {
    const { model, provider: name } = candidate.offering;
    if (candidate.skip !== undefined) {
      const { outcome, message } = candidate.skip;
      attempts.push({ provider: name, model, outcome, message, duration_ms: 0 });
      continue;
    }
    const keys = getProvider.health.order(name, getProvider.keys(name));
    eachKey: for (const [position, slot] of keys.entries()) {
      const label = slot.label === undefined ? NO_LABEL : { key: slot.label };
      const provider = await getProvider(name, slot.index);
      if ('missing' in provider) {
        missing.add(provider.problem ? `${provider.missing} (it ${provider.problem})` : provider.missing);
        attempts.push({
          provider: name,
          model,
          ...label,
          outcome: 'missing_credentials',
          message: `${provider.missing} ${provider.problem ?? 'is not set'}`,
          duration_ms: 0,
        });
        continue;
      }
      const providerName = provider.name;
      for (let retry = 0; ; retry++) {
        if (performance.now() >= deadlineAt)
          throw deadlineExceeded({ provider: providerName, model }, options.totalTimeoutMs).withAttempts(attempts);
        const started = performance.now();
        const scope = new AttemptScope(signal, deadlineAt, options.totalTimeoutMs);
        let shaped: ShapedRequest | undefined;
        try {
          const value = await operation(provider, candidate, scope, (request) => (shaped = request));
          scope.settle();
          getProvider.health.succeeded(name, slot);
          attempts.push({
            provider: providerName,
            model,
            ...label,
            outcome: 'ok',
            duration_ms: elapsed(started),
            ...warningsOf(shaped),
          });
          return { value, candidate, shaped, provider: providerName, scope };
        } catch (thrown) {
          scope.dispose();
          // The gateway's own limits speak for themselves, whatever the adapter made of the abort.
          const expired = scope.expired;
          const failure =
            expired && !signal?.aborted ? expiredError(expired, { provider: providerName, model }) : thrown;
          // Anything but a provider failure (a bug, an invalid request) is not the provider's fault: no retry.
          if (!(failure instanceof ProviderError)) throw failure;
          const error = failure;
          attempts.push({
            provider: providerName,
            model,
            ...label,
            status: error.status,
            outcome: error.code ?? outcomeOf(error.status),
            message: error.message,
            duration_ms: elapsed(started),
            ...warningsOf(shaped),
          });
          // A key's own fault (limited, refused): the provider's next key at once, before any backoff.
          if (KEY_FAULTS.has(error.status ?? 0) && keys.length > 1) {
            getProvider.health.failed(name, slot);
            if (position < keys.length - 1 && !signal?.aborted) {
              lastError = error;
              continue eachKey;
            }
          }
          if (movesOn(error, plan.fallbackOn) && !signal?.aborted) {
            lastError = error;
            break eachKey;
          }
          if (!error.retryable || signal?.aborted) throw error.withAttempts(attempts);
          lastError = error;
          const delay = backoff(retry, error.retryAfterMs, options);
          if (retry >= options.maxRetries) break eachKey;
          if (performance.now() + delay >= deadlineAt)
            throw deadlineExceeded({ provider: providerName, model }, options.totalTimeoutMs).withAttempts(attempts);
          await options.wait(delay, signal);
        }
      }
    }
  }

  if (lastError) throw lastError.withAttempts(attempts);
  const tooLong = candidates.find((candidate) => candidate.skip?.outcome === 'context_too_long');
  if (tooLong?.skip && missing.size === 0) {
    const error = new InvalidRequestError(tooLong.skip.message, 'messages', 'context_length_exceeded');
    throw Object.assign(error, { attempts });
  }
  throw new MissingCredentialsError(
    `No provider of ${candidates
      .filter((candidate) => candidate.skip === undefined)
      .map((candidate) => candidate.model.id)
      .filter(unique)
      .join(', ')} has credentials. ` +
      `Set ${[...missing].join(' or ')} (or pass providers: { <name>: { apiKey } } to createGateway).`,
    attempts,
  );
}

/**
 * Failures the next candidate may not share, never retried on the same one: a prompt longer than this model's
 * window, and, where the caller's `fallback_on` names it, this provider's content filter.
 */
export function movesOn(error: ProviderError, fallbackOn: readonly string[] | undefined): boolean {
  if (error.code === 'context_length_exceeded') return true;
  return fallbackOn?.some((reason) => reason === error.code) ?? false;
}

/** Failures that belong to one key, not to the provider: rate limited, or the key refused. */
const KEY_FAULTS = new Set([429, 401, 403]);

function backoff(retry: number, retryAfterMs: number | undefined, options: RetryPolicy): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, options.maxDelayMs);
  const exponential = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** retry);
  // "Equal jitter": half fixed, half random, so synchronized clients spread out without retrying instantly.
  return exponential / 2 + Math.random() * (exponential / 2);
}

function outcomeOf(status: number): string {
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server_error';
  return 'client_error';
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

function unique<T>(value: T, index: number, array: T[]): boolean {
  return array.indexOf(value) === index;
}

function sleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, milliseconds);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** The attempt of a key without a label names none. */
const NO_LABEL: { key?: string } = Object.freeze({});

/** The warnings of the request an attempt sent, for its attempt entry; none when it sent none or had none. */
function warningsOf(shaped: ShapedRequest | undefined): { warnings?: CompletionWarning[] } {
  return shaped?.warnings.warnings.length ? { warnings: shaped.warnings.warnings } : NO_WARNINGS;
}

const NO_WARNINGS: { warnings?: CompletionWarning[] } = Object.freeze({});

import type { CompletionOptions } from './resolve-request.ts';
import type { RetryOptions } from './run-attempts.ts';
import type { Services } from './services.ts';

/**
 * How the attempts of one call run, for completions and embeddings alike: the gateway's retry policy with the call's
 * overrides, the caller's signal, the call's deadline, and each provider's per-attempt timeout.
 */
export interface AttemptPolicy {
  readonly retry: Required<RetryOptions>;
  readonly signal: AbortSignal | undefined;
  /** When the call must be over, as a `performance.now()` time. */
  readonly deadlineAt: number;
  /** The per-attempt timeout of one candidate provider (its SDK's request timeout). */
  readonly attemptTimeoutMs: (provider: string) => number;
}

export function attemptPolicy(services: Services, options: CompletionOptions, startedMonotonic: number): AttemptPolicy {
  const { settings } = services;
  const retry = options.retry ? { ...settings.retry, ...options.retry } : settings.retry;
  return {
    retry,
    signal: options.signal,
    deadlineAt: startedMonotonic + retry.totalTimeoutMs,
    attemptTimeoutMs: (provider) => settings.providers?.[provider]?.timeoutMs ?? settings.timeoutMs,
  };
}

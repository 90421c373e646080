import type { StreamTimeouts } from './open-stream.ts';
import type { CompletionOptions } from './resolve-request.ts';
import { type RetryPolicy, retryPolicy } from './run-attempts.ts';
import type { Services } from './services.ts';

/**
 * How the attempts of one call run, for completions and embeddings alike: the gateway's retry policy with the call's
 * overrides, the caller's signal, the call's deadline, and each provider's per-attempt timeout.
 */
export interface AttemptPolicy {
  readonly retry: RetryPolicy;
  readonly signal: AbortSignal | undefined;
  /** When the call must be over, as a `performance.now()` time. */
  readonly deadlineAt: number;
}

export function attemptPolicy(services: Services, options: CompletionOptions, startedMonotonic: number): AttemptPolicy {
  const { settings } = services;
  const retry = options.retry ? retryPolicy(settings.retry, options.retry) : settings.retry;
  return {
    retry,
    signal: options.signal,
    deadlineAt: startedMonotonic + retry.totalTimeoutMs,
  };
}

/** The per-attempt timeout of one candidate provider (its transport's request timeout): its own, else the gateway's. */
export function attemptTimeoutMs(services: Services, provider: string): number {
  const { settings } = services;
  return settings.providers?.[provider]?.timeoutMs ?? settings.timeoutMs;
}

/** The stream limits of one candidate provider: the call's own, else the provider's, else the gateway's. */
export function streamTimeoutsOf(services: Services, asked: Partial<StreamTimeouts>, provider: string): StreamTimeouts {
  const configured = services.settings.providers?.[provider];
  const defaults = services.settings.streamTimeouts;
  return {
    firstTokenMs: asked.firstTokenMs ?? configured?.firstTokenTimeoutMs ?? defaults.firstTokenMs,
    idleMs: asked.idleMs ?? configured?.streamIdleTimeoutMs ?? defaults.idleMs,
  };
}

import type { ProviderError } from '../errors.ts';
import { deadlineExceeded, firstTokenTimeout, streamIdle } from '../providers/provider-errors.ts';

/**
 * Why an attempt was cut short by the gateway itself (not by the caller): the call's total deadline passed, the
 * first token took too long, or a stream went quiet. It is the abort reason of the attempt's signal.
 */
export class AttemptExpired extends Error {
  override name = 'AttemptExpired';
  readonly kind: 'deadline' | 'first_token' | 'stream_idle';
  readonly limitMs: number;
  constructor(kind: AttemptExpired['kind'], limitMs: number) {
    super(`${kind} limit of ${limitMs} ms reached`);
    this.kind = kind;
    this.limitMs = limitMs;
  }
}

/**
 * The life of one provider attempt: its own `AbortSignal`, which the caller's signal, the call's deadline and the
 * stream timeouts all abort. The adapter is handed `signal`; whoever finishes with the attempt calls `dispose()`
 * (for a stream, when the stream ends) so no timer or listener outlives it.
 */
export class AttemptScope {
  readonly #controller = new AbortController();
  readonly #callerSignal: AbortSignal | undefined;
  readonly #onCallerAbort = () => this.#controller.abort(this.#callerSignal!.reason);
  #deadline: NodeJS.Timeout | undefined;

  /** `deadlineAt` is a `performance.now()` time; past it the attempt is aborted with `AttemptExpired('deadline')`. */
  constructor(callerSignal: AbortSignal | undefined, deadlineAt: number, totalMs: number) {
    this.#callerSignal = callerSignal;
    if (callerSignal?.aborted) this.#controller.abort(callerSignal.reason);
    else callerSignal?.addEventListener('abort', this.#onCallerAbort, { once: true });
    const remaining = Math.max(0, deadlineAt - performance.now());
    this.#deadline = setTimeout(() => this.expire(new AttemptExpired('deadline', totalMs)), remaining);
    this.#deadline.unref();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The gateway's own reason the attempt was aborted, if it was (undefined when the caller aborted, or nothing did). */
  get expired(): AttemptExpired | undefined {
    const reason: unknown = this.#controller.signal.reason;
    return reason instanceof AttemptExpired ? reason : undefined;
  }

  /** Aborts the attempt for one of the gateway's limits. */
  expire(reason: AttemptExpired): void {
    this.#controller.abort(reason);
  }

  /** The answer is in the caller's hands (complete, or streaming): the call's deadline no longer applies. */
  settle(): void {
    clearTimeout(this.#deadline);
    this.#deadline = undefined;
  }

  dispose(): void {
    this.settle();
    this.#callerSignal?.removeEventListener('abort', this.#onCallerAbort);
  }
}

/** The provider error an expired attempt ends with. */
export function expiredError(expired: AttemptExpired, who: { provider: string; model: string }): ProviderError {
  if (expired.kind === 'deadline') return deadlineExceeded(who, expired.limitMs);
  if (expired.kind === 'first_token') return firstTokenTimeout(who, expired.limitMs);
  return streamIdle(who, expired.limitMs);
}

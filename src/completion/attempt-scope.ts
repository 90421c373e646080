import type { ProviderError } from '../errors.ts';
import { unrefTimer } from '../internal/runtime.ts';
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
 * How far the SDK's own timeout may end an attempt past the call's deadline before the attempt gets a signal of its
 * own: with both at their 10-minute defaults, the first attempt needs none.
 */
const DEADLINE_SLACK_MS = 1_000;

/**
 * The life of one provider attempt: the `AbortSignal` the adapter is handed, which the caller's signal, the call's
 * deadline and the stream limits all abort. Whoever finishes with the attempt calls `dispose()` (for a stream, when
 * the stream ends) so no timer or listener outlives it.
 *
 * The signal is made only when something may need to abort the attempt: an SDK handed a signal links it to its
 * own (about 30 µs a call), and an attempt the SDK's own timeout ends before the deadline needs none.
 */
export class AttemptScope {
  readonly #callerSignal: AbortSignal | undefined;
  readonly #deadlineAt: number;
  readonly #totalMs: number;
  #controller: AbortController | undefined;
  #deadline: NodeJS.Timeout | undefined;
  readonly #onCallerAbort = () => this.#controller?.abort(this.#callerSignal!.reason);

  /** `deadlineAt` is a `performance.now()` time; past it the attempt is aborted with `AttemptExpired('deadline')`. */
  constructor(callerSignal: AbortSignal | undefined, deadlineAt: number, totalMs: number) {
    this.#callerSignal = callerSignal;
    this.#deadlineAt = deadlineAt;
    this.#totalMs = totalMs;
  }

  /**
   * The signal to hand the adapter: the caller's own (or `undefined` without one) when nothing of the gateway's
   * could abort the attempt — no stream limit, and a deadline the transport's per-attempt timeout reaches first.
   */
  signalFor(needs: { attemptTimeoutMs: number; streamLimits: boolean }): AbortSignal | undefined {
    const remaining = this.#deadlineAt - performance.now();
    if (needs.streamLimits || remaining + DEADLINE_SLACK_MS < needs.attemptTimeoutMs) return this.signal;
    // Only the caller can abort it (serve passes every request's signal): theirs as it is, with no controller,
    // listener or timer of ours per attempt.
    return this.#callerSignal;
  }

  /** The attempt's signal (made on first use, with the caller's signal linked and the deadline armed). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#callerSignal?.aborted) this.#controller.abort(this.#callerSignal.reason);
      else this.#callerSignal?.addEventListener('abort', this.#onCallerAbort, { once: true });
      const remaining = Math.max(0, this.#deadlineAt - performance.now());
      this.#deadline = setTimeout(() => this.expire(new AttemptExpired('deadline', this.#totalMs)), remaining);
      unrefTimer(this.#deadline);
    }
    return this.#controller.signal;
  }

  /**
   * The gateway's own reason the attempt was aborted, if it was (undefined when the caller aborted, or nothing did).
   */
  get expired(): AttemptExpired | undefined {
    const reason: unknown = this.#controller?.signal.reason;
    return reason instanceof AttemptExpired ? reason : undefined;
  }

  /** Aborts the attempt for one of the gateway's limits. */
  expire(reason: AttemptExpired): void {
    void this.signal;
    this.#controller!.abort(reason);
  }

  /** The answer is in the caller's hands (complete, or streaming): the call's deadline no longer applies. */
  settle(): void {
    clearTimeout(this.#deadline);
    this.#deadline = undefined;
  }

  dispose(): void {
    this.settle();
    if (this.#controller) this.#callerSignal?.removeEventListener('abort', this.#onCallerAbort);
  }
}

/** The provider error an expired attempt ends with. */
export function expiredError(expired: AttemptExpired, who: { provider: string; model: string }): ProviderError {
  if (expired.kind === 'deadline') return deadlineExceeded(who, expired.limitMs);
  if (expired.kind === 'first_token') return firstTokenTimeout(who, expired.limitMs);
  return streamIdle(who, expired.limitMs);
}

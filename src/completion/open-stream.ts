import { unrefTimer } from '../internal/runtime.ts';
import type { CompletionChunk } from '../types.ts';
import { AttemptExpired, type AttemptScope } from './attempt-scope.ts';

/** Limits on a streamed attempt, in milliseconds; unset means none (the per-attempt `timeoutMs` still applies). */
export interface StreamTimeouts {
  /** From the start of the attempt to the first chunk with content (text, reasoning, a tool call, a finish). */
  firstTokenMs?: number | undefined;
  /** The longest wait for the provider's next chunk. */
  idleMs?: number | undefined;
}

/** A provider stream whose start has been read inside the attempt. */
export interface OpenedStream {
  /** The chunks read so far, up to and including the first with content. */
  head: CompletionChunk[];
  /** The stream ended within the head. */
  ended: boolean;
  rest: AsyncIterator<CompletionChunk>;
}

/** Chunks without content that may open a stream (a role chunk, a provider's filter notes) before the first with. */
const MAX_HEAD = 16;

/**
 * Reads a provider's stream up to its first content, inside the attempt: a provider that fails, goes quiet or
 * takes longer than `firstTokenMs` before the caller has seen anything fails the attempt, which is retried or falls
 * back like any other failure. The chunks read are handed on, none lost.
 */
export async function openStream(
  source: AsyncIterable<CompletionChunk>,
  scope: AttemptScope,
  timeouts: StreamTimeouts,
): Promise<OpenedStream> {
  const rest = source[Symbol.asyncIterator]();
  const head: CompletionChunk[] = [];
  const started = performance.now();
  try {
    for (;;) {
      const next = await nextWithin(rest, scope, headLimit(timeouts, performance.now() - started));
      if (next.done) return { head, ended: true, rest };
      head.push(next.value);
      if (carriesContent(next.value) || head.length >= MAX_HEAD) return { head, ended: false, rest };
    }
  } catch (error) {
    await rest.return?.().catch(() => undefined);
    throw error;
  }
}

interface WaitLimit {
  waitMs: number;
  /** What the attempt ends with when the wait runs out (the error made only then: it captures a stack). */
  kind: 'first_token' | 'stream_idle';
  limitMs: number;
}

/** Whichever limit comes first for the next wait of the head. */
function headLimit(timeouts: StreamTimeouts, elapsedMs: number): WaitLimit | undefined {
  const { firstTokenMs, idleMs } = timeouts;
  const firstLeft = firstTokenMs === undefined ? Infinity : Math.max(0, firstTokenMs - elapsedMs);
  if (idleMs !== undefined && idleMs <= firstLeft) return { waitMs: idleMs, kind: 'stream_idle', limitMs: idleMs };
  return firstTokenMs === undefined ? undefined : { waitMs: firstLeft, kind: 'first_token', limitMs: firstTokenMs };
}

/** The iterator's next result, or the attempt expired once the limit passes (the provider's request is aborted). */
async function nextWithin<T>(
  iterator: AsyncIterator<T>,
  scope: AttemptScope,
  limit: WaitLimit | undefined,
): Promise<IteratorResult<T>> {
  const pending = iterator.next();
  if (limit === undefined) return pending;
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const expiry = new AttemptExpired(limit.kind, limit.limitMs);
      scope.expire(expiry);
      reject(expiry);
    }, limit.waitMs);
  });
  try {
    return await Promise.race([pending, expiry]);
  } finally {
    clearTimeout(timer);
    // Once expired, the aborted provider call rejects too: nobody awaits it any more.
    pending.catch(() => undefined);
  }
}

function carriesContent(chunk: CompletionChunk): boolean {
  if (chunk.usage) return true;
  return chunk.choices.some(
    ({ delta, finish_reason }) =>
      finish_reason != null ||
      !!delta.content ||
      !!delta.reasoning_content ||
      !!delta.refusal ||
      !!delta.tool_calls?.length ||
      !!delta.images?.length ||
      !!delta.reasoning_details?.length,
  );
}

/**
 * Watches a stream that reaches the caller for the provider going quiet: one timer, re-armed lazily, that expires
 * the attempt once a wait for the provider's next chunk passes `idleMs` (time the caller takes between reads does
 * not count).
 */
export class IdleWatch {
  readonly #scope: AttemptScope;
  readonly #idleMs: number;
  #waitingSince: number | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(scope: AttemptScope, idleMs: number) {
    this.#scope = scope;
    this.#idleMs = idleMs;
  }

  /** A read from the provider starts. */
  waiting(): void {
    this.#waitingSince = performance.now();
    this.#timer ??= unrefTimer(setTimeout(this.#check, this.#idleMs));
  }

  /** The read returned. */
  received(): void {
    this.#waitingSince = undefined;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  readonly #check = (): void => {
    this.#timer = undefined;
    if (this.#waitingSince === undefined) return;
    const waited = performance.now() - this.#waitingSince;
    if (waited >= this.#idleMs) this.#scope.expire(new AttemptExpired('stream_idle', this.#idleMs));
    else this.#timer = unrefTimer(setTimeout(this.#check, this.#idleMs - waited));
  };
}

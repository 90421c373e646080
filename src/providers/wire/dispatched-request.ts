import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { lazyNodeBuiltin } from '../../internal/node-builtin.ts';

const nodeStream = lazyNodeBuiltin('node:stream', 'The pooled HTTP transport');
const nodeEvents = lazyNodeBuiltin('node:events', 'The pooled HTTP transport');

/** What `dispatchedRequest` answers: the status, the parsed headers and the body, read as it arrives. */
export interface DispatchedResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /**
   * The body as a stream, made on first use: reading it resumes the socket; destroying it before its end aborts the
   * request. Read the body either this way or with `text()`, not both.
   */
  readonly body: Readable;
  /** The whole body as UTF-8 text, its chunks gathered as they come: no stream is made. */
  text(): Promise<string>;
}

/**
 * `dispatcher.request(options)` with a handler of ours. undici's own (`RequestHandler`) makes a closure over each
 * request's controller as the request starts, and with it (and a listener added with `addEventListener`) V8 promoted
 * most of every call out of the young generation (serve, sequential calls: 5.6 → 1.0 kB a call, 17 → 3
 * mark-compacts per 20,000 calls; docs/performance.md). This one keeps the controller as a field, and makes the
 * body's `Readable` only for a caller that streams it: an answer read whole (`text()`) is gathered chunk by chunk
 * (a stream per call cost ~8 ticks of `process.nextTick` and its state objects). Same outcomes: undici's errors
 * (headers and body timeouts included), backpressure to the socket, `signal` aborting the request or its body with
 * the signal's reason.
 */
export function dispatchedRequest(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal?: AbortSignal,
): Promise<DispatchedResponse> {
  return new Promise((resolve, reject) => {
    const handler = new ResponseHandler(resolve, reject, signal);
    try {
      dispatcher.dispatch(options, handler as unknown as Dispatcher.DispatchHandler);
    } catch (error) {
      handler.finish();
      reject(error);
    }
  });
}

/** undici's `Readable` high-water mark for bodies (its `request`'s default), so chunks pause the socket as before. */
const HIGH_WATER_MARK = 64 * 1024;
const kHandler = Symbol('handler');
type BodyStream = Readable & { [kHandler]: ResponseHandler };

/** The body's `_read`: more is wanted, so the socket resumes. */
function readMore(this: Readable): void {
  (this as BodyStream)[kHandler].controller?.resume();
}

/** The body's `_destroy`: destroyed before its end (a consumer gave up, or an error), the request is aborted. */
function abortUnfinished(this: Readable, error: Error | null, done: (error: Error | null) => void): void {
  // Every body read to its end comes here too: the Error (its stack trace ~10 µs) is made only when it is needed.
  if (!this.readableEnded) {
    (this as BodyStream)[kHandler].abort(error ?? new Error('The response body was destroyed before its end.'));
  }
  done(error);
}

/** The body closed (read to its end, or destroyed): the signal has nothing left to abort. */
function forgetSignal(this: Readable): void {
  (this as BodyStream)[kHandler].finish();
}

/**
 * undici's handler interface (its `DispatchHandler`), as methods on one object per request: the controller a field,
 * no closure over it (the one closure is the abort listener's, over the handler). It is the answer too: until the
 * caller picks `body` or `text()`, the chunks that arrive are kept (the socket paused past the high-water mark).
 */
class ResponseHandler implements DispatchedResponse {
  controller: Dispatcher.DispatchController | undefined;
  statusCode = 0;
  headers: Record<string, string | string[] | undefined> = {};
  #resolve: ((response: DispatchedResponse) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  #signal: AbortSignal | undefined;
  #listening: Disposable | undefined;
  #body: BodyStream | undefined;
  /** The body's chunks so far, while no stream is made. */
  #chunks: Buffer[] = [];
  #bytes = 0;
  #ended = false;
  #failure: Error | undefined;
  /** `text()` waiting for the end of the body. */
  #whole: { resolve: (text: string) => void; reject: (error: unknown) => void } | undefined;

  constructor(
    resolve: (response: DispatchedResponse) => void,
    reject: (error: unknown) => void,
    signal: AbortSignal | undefined,
  ) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    // Node's own `addAbortListener`, as undici's handler does: with `signal.addEventListener`, V8 promoted ~2.9 kB
    // more of each call (the same serve measurement).
    if (signal) this.#listening = nodeEvents().addAbortListener(signal, () => this.abort(signal.reason));
  }

  get body(): Readable {
    if (this.#body) return this.#body;
    const body = new (nodeStream().Readable)({
      highWaterMark: HIGH_WATER_MARK,
      read: readMore,
      destroy: abortUnfinished,
    }) as BodyStream;
    body[kHandler] = this;
    body.on('close', forgetSignal);
    this.#body = body;
    for (const chunk of this.#chunks) body.push(chunk);
    this.#chunks = [];
    if (this.#failure) body.destroy(this.#failure);
    else if (this.#ended) body.push(null);
    return body;
  }

  text(): Promise<string> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#ended) return Promise.resolve(this.#gathered());
    return new Promise((resolve, reject) => {
      this.#whole = { resolve, reject };
      this.controller?.resume();
    });
  }

  abort(reason: unknown): void {
    if (this.#body && !this.#body.destroyed) this.#body.destroy(reason as Error);
    else this.controller?.abort(reason as Error);
  }

  /** Done with the signal: the request failed, or its body closed. */
  finish(): void {
    this.#listening?.[Symbol.dispose]();
    this.#listening = undefined;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.#signal?.aborted) controller.abort(this.#signal.reason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // 1xx: informational, the answer is still to come.
    if (statusCode < 200) return;
    this.statusCode = statusCode;
    this.headers = headers;
    const resolve = this.#resolve!;
    this.#resolve = undefined;
    this.#reject = undefined;
    resolve(this);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#body) {
      if (!this.#body.push(chunk)) controller.pause();
      return;
    }
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    // Nobody reads yet: kept up to the mark, as a stream would, then the socket waits for `body` or `text()`.
    if (!this.#whole && this.#bytes >= HIGH_WATER_MARK) controller.pause();
  }

  onResponseEnd(): void {
    if (this.#body) return void this.#body.push(null);
    this.#ended = true;
    this.finish();
    const whole = this.#whole;
    this.#whole = undefined;
    whole?.resolve(this.#gathered());
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.finish();
    const reject = this.#reject;
    this.#resolve = undefined;
    this.#reject = undefined;
    if (reject) {
      reject(error);
      return;
    }
    if (this.#body) {
      if (!this.#body.destroyed) this.#body.destroy(error);
      return;
    }
    this.#failure = error;
    this.#chunks = [];
    const whole = this.#whole;
    this.#whole = undefined;
    whole?.reject(error);
  }

  #gathered(): string {
    const chunks = this.#chunks;
    this.#chunks = [];
    return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Reply, ServerRequest } from './exchange.ts';
import { bodyTooLarge } from './read-json-body.ts';
import { HttpError } from './responses.ts';

export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  call_id: string | null;
  /** The client left before the response was complete. */
  aborted?: boolean;
}

export interface NodeListenerOptions {
  /** Used for the request URL when the `Host` header is missing or unusable. */
  origin: string;
  /** One entry per request, once its response has ended (streams included). */
  onRequestLogged?: (entry: RequestLogEntry) => void;
  /** While true, responses ask clients to close the connection (the server is shutting down). */
  isClosing?: () => boolean;
}

/**
 * A `node:http` request listener over the handler's runtime-neutral `handle`: headers, path and body are read straight
 * off the `IncomingMessage`, and a complete answer leaves in one write with its `Content-Length`. No Web `Request`,
 * `Headers` or stream is built unless a route asks for one (`toWeb()`, the MCP transport).
 */
export function createNodeListener(handler: { handle(request: ServerRequest): Promise<Reply> }, options: NodeListenerOptions) {
  let inFlight = 0;
  const idle: Array<() => void> = [];
  const running = new Set<NodeRequest>();
  const settle = (request: NodeRequest) => {
    inFlight -= 1;
    running.delete(request);
    if (inFlight === 0) for (const resolve of idle.splice(0)) resolve();
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    let request: NodeRequest;
    try {
      request = new NodeRequest(req, options.origin);
    } catch {
      // A request target no URL can be made of (`//`, `//%00/`): answer it; never let it escape the listener.
      res.writeHead(400, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      res.end(JSON.stringify({ error: { message: 'The request target is not a valid path.', type: 'invalid_request_error', param: null, code: 'invalid_path' } }));
      return;
    }
    inFlight += 1;
    running.add(request);
    let callId: string | null = null;
    // `close` before `finish` means the client went away: abort the call (and a running stream) it asked for.
    res.once('close', () => {
      if (!res.writableFinished) request.abort(new Error('The client closed the connection.'));
      options.onRequestLogged?.({
        method: request.method,
        path: request.path,
        // 499, as nginx logs it: the client closed the connection before an answer was sent.
        status: res.headersSent ? res.statusCode : 499,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        call_id: callId,
        ...(res.writableFinished ? {} : { aborted: true }),
      });
      settle(request);
    });
    handler
      .handle(request)
      .then((reply) => {
        callId = reply.headers['x-switchyard-call-id'] ?? null;
        return writeReply(request, res, reply, options.isClosing?.() ?? false);
      })
      .catch(() => {
        // Only a broken socket gets here (the handler answers every error itself).
        res.destroy();
      });
  };

  return Object.assign(listener, {
    /** Resolves once no request is in flight. */
    drained(): Promise<void> {
      return inFlight === 0 ? Promise.resolve() : new Promise((resolve) => idle.push(resolve));
    },
    /** Aborts every call still running: each ends as an error its client sees (an SSE error event for a stream). */
    abortAll(reason: string): void {
      for (const request of running) request.abort(new Error(reason));
    },
  });
}

/** Paths made only of plain segments need no URL parser: no `.`/`..` segment, no `//`, no percent-escape. */
const PLAIN_PATH = /^(?:\/[\w~:@-]+(?:\.[\w~:@-]+)*)*\/?$/;

class NodeRequest implements ServerRequest {
  readonly method: string;
  readonly path: string;
  readonly #req: IncomingMessage;
  readonly #origin: string;
  readonly #search: string;
  #query: URLSearchParams | undefined;
  #abort: AbortController | undefined;
  #abortReason: unknown;
  /** Set once the answer is sent: what is left of the upload is read and dropped, not buffered. */
  #discarding = false;

  constructor(req: IncomingMessage, origin: string) {
    this.#req = req;
    this.#origin = origin;
    this.method = req.method ?? 'GET';
    // A fragment never belongs to the request (clients do not send one); URL parsing would drop it too.
    const raw = req.url ?? '/';
    const hashAt = raw.indexOf('#');
    const target = hashAt === -1 ? raw : raw.slice(0, hashAt);
    const queryAt = target.indexOf('?');
    const path = queryAt === -1 ? target : target.slice(0, queryAt);
    if (PLAIN_PATH.test(path)) {
      this.path = path;
      this.#search = queryAt === -1 ? '' : target.slice(queryAt);
    } else {
      // Dot segments, escapes and the like: normalised as a URL would be (throws on targets that are no path).
      const url = parseTarget(req, origin);
      this.path = url.pathname;
      this.#search = url.search;
    }
  }

  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.#search));
  }

  header(name: string): string | undefined {
    const value = this.#req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  get signal(): AbortSignal {
    if (!this.#abort) {
      this.#abort = new AbortController();
      if (this.#abortReason !== undefined) this.#abort.abort(this.#abortReason);
    }
    return this.#abort.signal;
  }

  abort(reason: unknown): void {
    this.#abortReason ??= reason;
    this.#abort?.abort(reason);
  }

  /**
   * Drops what no route read of the upload (a 401, 406 or 413 answered before the body), so the keep-alive
   * connection is usable again instead of paused until its request timeout.
   */
  discardUnread(): void {
    if (this.#req.complete) return;
    this.#discarding = true;
    this.#req.resume();
  }

  body(maxBytes: number): Promise<Uint8Array> {
    const req = this.#req;
    if (Number(req.headers['content-length']) > maxBytes) return Promise.reject(bodyTooLarge(maxBytes));
    // The client left before the route got to the body: no event will come.
    if (req.destroyed && !req.complete) return Promise.reject(incompleteBody());
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const stop = () => {
        req.off('data', onData).off('end', onEnd).off('close', onClose).off('error', onClose);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size <= maxBytes) return void chunks.push(chunk);
        // Stop buffering but keep reading (and dropping) the upload, so the client still receives the 413.
        stop();
        req.resume();
        reject(bodyTooLarge(maxBytes));
      };
      const onEnd = () => {
        stop();
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      };
      const onClose = () => {
        stop();
        reject(incompleteBody());
      };
      req.on('data', onData).once('end', onEnd).once('close', onClose).once('error', onClose);
    });
  }

  toWeb(): Request {
    const req = this.#req;
    const headers = new Headers();
    for (let index = 0; index < req.rawHeaders.length; index += 2) {
      try {
        headers.append(req.rawHeaders[index]!, req.rawHeaders[index + 1]!);
      } catch {
        // A header value fetch refuses (control characters): drop it rather than fail the request.
      }
    }
    const url = parseTarget(req, this.#origin);
    const body = this.method === 'GET' || this.method === 'HEAD' ? undefined : webBodyOf(req, () => this.#discarding);
    return new Request(url, { method: this.method, headers, signal: this.signal, ...(body ? { body, duplex: 'half' } : {}) } as RequestInit);
  }
}

function incompleteBody(): HttpError {
  return new HttpError(400, 'The request body ended before it was complete.', { code: 'incomplete_body' });
}

function parseTarget(req: IncomingMessage, origin: string): URL {
  try {
    return new URL(req.url ?? '/', `http://${req.headers.host ?? ''}`);
  } catch {
    return new URL(req.url ?? '/', origin);
  }
}

/**
 * The upload as a Web stream; cancelling it, or the answer being sent (`discarding`), drops the rest instead of
 * destroying the socket.
 */
function webBodyOf(req: IncomingMessage, discarding: () => boolean): ReadableStream<Uint8Array> {
  let open = true;
  const settle = (finish: () => void) => {
    if (!open) return;
    open = false;
    finish();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (req.destroyed && !req.complete) {
        open = false;
        controller.error(incompleteBody());
        return;
      }
      req.on('data', (chunk: Buffer) => {
        if (!open || discarding()) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on('end', () => settle(() => controller.close()));
      req.on('error', (error) => settle(() => controller.error(error)));
    },
    pull() {
      req.resume();
    },
    cancel() {
      open = false;
      req.resume();
    },
  }, { highWaterMark: 1 });
}

async function writeReply(request: NodeRequest, res: ServerResponse, reply: Reply, closing: boolean): Promise<void> {
  const { headers, body } = reply;
  if (closing) headers.connection = 'close';
  if (body === null || typeof body === 'string' || body instanceof Uint8Array) {
    if (body !== null) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    // Headers and body leave together: `end` with the whole body before any header was flushed is one write.
    res.writeHead(reply.status, headers);
    res.end(body ?? undefined);
    request.discardUnread();
    return;
  }
  // No flushHeaders(): the headers leave with the first chunk, in one write.
  res.writeHead(reply.status, headers);
  try {
    for await (const chunk of body) {
      if (res.destroyed) return;
      // Each chunk is written as soon as it exists (an SSE event reaches the client at once); wait when the socket is full.
      if (!res.write(chunk)) await drainedOrClosed(res);
    }
    res.end();
    request.discardUnread();
  } catch {
    res.destroy();
  }
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.once('drain', done).once('close', done);
  });
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Reply, ServerRequest } from './exchange.ts';
import { NodeRequest } from './node-request.ts';

/**
 * Set on a reply whose body is an iterable by a handler that must know when it was sent (a key's concurrency slot):
 * called once the body's loop ends however it ends, so no generator layer wraps the body only to learn it.
 */
export const REPLY_SENT: unique symbol = Symbol('reply sent');
export type SentReply = Reply & { [REPLY_SENT]?: () => void };

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
  /** How long a stream waits for a client that reads nothing before it is cut off (default 60 s). */
  sendTimeoutMs?: number;
}

/**
 * A `node:http` request listener over the handler's runtime-neutral `handle`: headers, path and body are read straight
 * off the `IncomingMessage`, and a complete answer leaves in one write with its `Content-Length`. No Web `Request`,
 * `Headers` or stream is built unless a route asks for one (`toWeb()`, the MCP transport).
 */
export function createNodeListener(
  handler: { handle(request: ServerRequest): Promise<Reply> },
  options: NodeListenerOptions,
) {
  let inFlight = 0;
  const idle: Array<() => void> = [];
  const running = new Set<NodeRequest>();
  const settle = (request: NodeRequest) => {
    inFlight -= 1;
    running.delete(request);
    if (inFlight === 0) for (const resolve of idle.splice(0)) resolve();
  };

  /** `expectsContinue`: the request came as `checkContinue` (`Expect: 100-continue`), its body not yet invited. */
  const answer = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): void => {
    const started = performance.now();
    let request: NodeRequest;
    try {
      request = new NodeRequest(req, options.origin, expectsContinue ? () => res.writeContinue() : undefined);
    } catch {
      // A request target no URL can be made of (`//`, `//%00/`): answer it; never let it escape the listener.
      res.writeHead(400, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      res.end(
        JSON.stringify({
          error: {
            message: 'The request target is not a valid path.',
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_path',
          },
        }),
      );
      return;
    }
    inFlight += 1;
    running.add(request);
    let callId: string | null = null;
    let ended = false;
    // `close` before `finish` means the client went away: abort the call (and a running stream) it asked for.
    const end = () => {
      if (ended) return;
      ended = true;
      forget();
      if (!res.writableFinished) request.abort(new Error('The client closed the connection.'));
      settle(request);
      // A program's own log may throw (startServer({ log })): on this event it would end the process.
      try {
        options.onRequestLogged?.({
          method: request.method,
          path: request.path,
          // 499, as nginx logs it: the client closed the connection before an answer was sent.
          status: res.headersSent ? res.statusCode : 499,
          duration_ms: Math.round((performance.now() - started) * 10) / 10,
          call_id: callId,
          ...(res.writableFinished ? {} : { aborted: true }),
        });
      } catch {
        // The request has ended: nothing of it is left to fail.
      }
    };
    res.once('close', end);
    // Node 22 (the floor; 24.21 does) never closes the reply of a request pipelined behind another when the
    // connection goes: it would stay in flight for good (shutdown waiting on it, its slot held).
    const forget = endedWithConnection(req.socket, end);
    handler
      .handle(request)
      .then((reply) => {
        callId = reply.headers['x-switchyard-call-id'] ?? null;
        return writeReply(request, res, reply, options.isClosing?.() ?? false, options.sendTimeoutMs ?? 60_000);
      })
      .catch(() => {
        // Only a broken socket gets here (the handler answers every error itself).
        res.destroy();
      });
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => answer(req, res, false);
  return Object.assign(listener, {
    /**
     * For `server.on('checkContinue', …)`: a request that waits for `100 Continue`, which it gets only when a route
     * reads its body (without this listener Node sends it at once, before the key or the body's size is checked).
     */
    checkContinue: (req: IncomingMessage, res: ServerResponse): void => answer(req, res, true),
    /** Requests received and not yet answered (streams until they end). A method: `Object.assign` copies no getter. */
    inFlight: (): number => inFlight,
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

/** Each connection's requests not ended yet: one `close` listener a connection, however many it pipelines. */
const unended = new WeakMap<Socket, Set<() => void>>();

/** Runs `end` when the connection closes, unless the returned function is called first. */
function endedWithConnection(socket: Socket, end: () => void): () => void {
  let pending = unended.get(socket);
  if (!pending) {
    const requests = new Set<() => void>();
    unended.set(socket, requests);
    socket.once('close', () => {
      for (const ending of requests) ending();
    });
    pending = requests;
  }
  pending.add(end);
  return () => pending.delete(end);
}

async function writeReply(
  request: NodeRequest,
  res: ServerResponse,
  reply: SentReply,
  closing: boolean,
  sendTimeoutMs: number,
): Promise<void> {
  const { headers, body } = reply;
  if (closing || request.uninvited) headers.connection = 'close';
  if (body === null || typeof body === 'string' || body instanceof Uint8Array) {
    if (body !== null)
      headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    // Headers and body leave together: `end` with the whole body before any header was flushed is one write.
    res.writeHead(reply.status, headers);
    res.end(body ?? undefined);
    request.discardUnread();
    return;
  }
  // No flushHeaders(): the headers leave with the first chunk, in one write.
  res.writeHead(reply.status, headers);
  // The socket itself, not `res`: once the response finishes, `res` lets go of it and would uncork nothing, leaving a
  // kept-alive socket corked for the next response.
  const socket = res.socket;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket?.uncork();
  };
  try {
    for await (const chunk of body) {
      if (res.destroyed) return;
      // Each chunk is written as soon as it exists (an SSE event reaches the client at once): corked only until the
      // end of this turn, so the events one provider read yields leave in one socket write. Wait when it is full.
      if (!corked && socket) {
        corked = true;
        socket.cork();
        process.nextTick(uncork);
      }
      if (!res.write(chunk)) await drainedOrClosed(res, request.signal, sendTimeoutMs);
    }
    res.end();
    request.discardUnread();
  } catch {
    res.destroy();
  } finally {
    reply[REPLY_SENT]?.();
  }
}

/**
 * Until the client has read what waits, or is gone. A client that reads nothing for `timeoutMs` (or a call aborted
 * meanwhile: a second signal's shutdown) is cut off: it would hold its slot, its upstream call and the shutdown.
 */
function drainedOrClosed(res: ServerResponse, signal: AbortSignal, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const cutOff = () => {
      res.destroy();
      done();
    };
    const timer = setTimeout(cutOff, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', cutOff);
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.once('drain', done).once('close', done);
    if (signal.aborted) cutOff();
    else signal.addEventListener('abort', cutOff, { once: true });
  });
}

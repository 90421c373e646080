import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SwitchyardHandler } from './handler.ts';

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

/** A `node:http` request listener that runs a Web handler: Request in, Response streamed out chunk by chunk. */
export function createNodeListener(handler: SwitchyardHandler, options: NodeListenerOptions) {
  let inFlight = 0;
  const idle: Array<() => void> = [];
  const running = new Set<AbortController>();
  const settle = (abort: AbortController) => {
    inFlight -= 1;
    running.delete(abort);
    if (inFlight === 0) for (const resolve of idle.splice(0)) resolve();
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    let converted: ReturnType<typeof toWebRequest>;
    const abort = new AbortController();
    try {
      converted = toWebRequest(req, options.origin, abort.signal);
    } catch {
      // A request target no URL can be made of (`//`, `//%00/`): answer it; never let it escape the listener.
      res.writeHead(400, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      res.end(JSON.stringify({ error: { message: 'The request target is not a valid path.', type: 'invalid_request_error', param: null, code: 'invalid_path' } }));
      return;
    }
    inFlight += 1;
    running.add(abort);
    let callId: string | null = null;
    const { request, discardBody } = converted;
    // What the handler did not read of an upload (a 401 or 413 before the body) is dropped, keeping the connection usable.
    res.on('finish', discardBody);
    // `close` before `finish` means the client went away: abort the call (and a running stream) it asked for.
    res.on('close', () => {
      if (!res.writableFinished) abort.abort(new Error('The client closed the connection.'));
      options.onRequestLogged?.({
        method: req.method ?? '',
        path: (req.url ?? '/').split('?')[0]!,
        // 499, as nginx logs it: the client closed the connection before an answer was sent.
        status: res.headersSent ? res.statusCode : 499,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        call_id: callId,
        ...(res.writableFinished ? {} : { aborted: true }),
      });
      settle(abort);
    });
    void handler(request)
      .then((response) => {
        callId = response.headers.get('x-switchyard-call-id');
        return writeResponse(res, response, options.isClosing?.() ?? false);
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
      for (const abort of running) abort.abort(new Error(reason));
    },
  });
}

function toWebRequest(req: IncomingMessage, origin: string, signal: AbortSignal): { request: Request; discardBody: () => void } {
  const headers = new Headers();
  for (let index = 0; index < req.rawHeaders.length; index += 2) {
    try {
      headers.append(req.rawHeaders[index]!, req.rawHeaders[index + 1]!);
    } catch {
      // A header value fetch refuses (control characters): drop it rather than fail the request.
    }
  }
  let url: URL;
  try {
    url = new URL(req.url ?? '/', `http://${req.headers.host ?? ''}`);
  } catch {
    url = new URL(req.url ?? '/', origin);
  }
  const method = req.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' ? undefined : bodyOf(req);
  const request = new Request(url, { method, headers, signal, ...(body ? { body: body.stream, duplex: 'half' } : {}) } as RequestInit);
  return { request, discardBody: body?.discard ?? (() => req.resume()) };
}

/**
 * The request body as a Web stream. Cancelling it (a body over the size limit) discards the rest of the upload
 * instead of destroying the socket, so the client still receives the 413.
 */
function bodyOf(req: IncomingMessage): { stream: ReadableStream<Uint8Array>; discard: () => void } {
  let open = true;
  const settle = (finish: () => void) => {
    if (!open) return;
    open = false;
    finish();
  };
  const discard = () => {
    open = false;
    req.resume();
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Buffer) => {
        if (!open) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on('end', () => settle(() => controller.close()));
      req.on('error', (error) => settle(() => controller.error(error)));
    },
    pull() {
      req.resume();
    },
    cancel: discard,
  }, { highWaterMark: 1 });
  return { stream, discard };
}

async function writeResponse(res: ServerResponse, response: Response, closing: boolean): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (closing) headers.connection = 'close';
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  res.once('close', () => {
    if (!res.writableFinished) void reader.cancel().catch(() => undefined);
  });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      // Each chunk is written as soon as it exists (an SSE event reaches the client at once); wait when the socket is full.
      if (!res.write(value)) await new Promise<void>((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
      if (res.destroyed) return;
    }
    res.end();
  } catch {
    res.destroy();
  }
}

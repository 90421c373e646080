import type { IncomingMessage } from 'node:http';
import type { ServerRequest } from './exchange.ts';
import { bodyTooLarge } from './read-json-body.ts';
import { HttpError } from './responses.ts';

/** The runtime-neutral `ServerRequest` over a `node:http` request: headers, path and body read straight off it. */

/** Paths made only of plain segments need no URL parser: no `.`/`..` segment, no `//`, no percent-escape. */
const PLAIN_PATH = /^(?:\/[\w~:@-]+(?:\.[\w~:@-]+)*)*\/?$/;

export class NodeRequest implements ServerRequest {
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
  /**
   * Sends `100 Continue` to a client that waits for it (`Expect: 100-continue`), once a route reads the body: a
   * request refused before (key, scope, limits, a declared length over the limit) never has its upload sent.
   */
  #invite: (() => void) | undefined;

  constructor(req: IncomingMessage, origin: string, invite?: () => void) {
    this.#req = req;
    this.#origin = origin;
    this.#invite = invite;
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

  get peer(): string | undefined {
    return this.#req.socket.remoteAddress;
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
   * Whether the client still waits for `100 Continue` now that the answer leaves: its connection is closed after it
   * (it may send the upload anyway, as curl does after a second, and nothing would read it).
   */
  get uninvited(): boolean {
    return this.#invite !== undefined;
  }

  #inviteBody(): void {
    this.#invite?.();
    this.#invite = undefined;
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
    // Parsed whole already (a small body comes in its headers' packet): its bytes are taken off the stream's buffer
    // at once, without the turns that 'data' and 'end' would take.
    if (req.complete && !req.readableFlowing) {
      const bytes = (req.read() as Buffer | null) ?? Buffer.alloc(0);
      return bytes.length > maxBytes ? Promise.reject(bodyTooLarge(maxBytes)) : Promise.resolve(bytes);
    }
    this.#inviteBody();
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
    // A route that takes the request as a Web one reads its body (the MCP transport).
    if (body) this.#inviteBody();
    return new Request(url, {
      method: this.method,
      headers,
      signal: this.signal,
      ...(body ? { body, duplex: 'half' } : {}),
    } as RequestInit);
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
  return new ReadableStream<Uint8Array>(
    {
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
    },
    { highWaterMark: 1 },
  );
}

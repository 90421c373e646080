import { EventEmitter } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A raw `node:http` server that stands in front of one of the fake provider servers (test/fake-servers/) and
 * injects faults at the HTTP level, the same way for every provider: a scripted status and body, a dropped
 * connection, a request that is never answered, a 200 whose body is not JSON, a stream cut off after N events,
 * or a stream that stalls forever. Without a scripted fault it forwards the request to the fake server, so
 * successful answers are the fake server's (realistic) ones.
 *
 * It also watches its own sockets, so tests can check that the SDKs behind the gateway close what they opened:
 * `inFlight()` counts responses that neither finished nor lost their connection (a leaked stream or a hung
 * request whose client never gave up), `openSockets()` counts connections (idle keep-alive ones included).
 */
export type Fault =
  /** Forward to the fake server and relay its answer. */
  | { kind: 'pass' }
  /** Answer with this status, body (an object is sent as JSON) and headers. */
  | { kind: 'status'; status: number; body: unknown; headers?: Record<string, string> }
  /** Destroy the connection without answering. */
  | { kind: 'reset' }
  /** Read the request and never answer (until the client gives up and closes the connection). */
  | { kind: 'hang' }
  /** 200 with a JSON content type and a body that is not JSON (default: half of a completion object). */
  | { kind: 'malformed'; body?: string; contentType?: string }
  /** Forward to the fake server, relay its first `events` server-sent events, then destroy the connection. */
  | { kind: 'truncate'; events: number }
  /** Forward to the fake server, relay its first `events` server-sent events, then end the response cleanly. */
  | { kind: 'end'; events: number }
  /** Forward to the fake server, relay its first `events` server-sent events, then send nothing more, ever. */
  | { kind: 'stall'; events: number };

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** `performance.now()` when the request arrived. */
  at: number;
  fault: Fault['kind'];
}

export interface FaultyServer {
  /** Origin of this server (`http://127.0.0.1:port`), no path. */
  url: string;
  requests: SeenRequest[];
  /** Faults for the next requests, in order; once they are used up, requests are forwarded. */
  enqueue(...faults: Fault[]): void;
  /** Forgets the requests seen and the faults not used yet. */
  reset(): void;
  openSockets(): number;
  inFlight(): number;
  /**
   * Waits, until every response has finished or lost its connection (at most `timeoutMs`, a bound against a hang);
   * returns `inFlight()`.
   */
  settled(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

/** Headers that describe one hop's framing, not the message; never relayed. */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'host',
  'content-encoding',
]);

export const DEFAULT_MALFORMED_BODY =
  '{"id":"chatcmpl-broken","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis';

export async function startFaultyServer(upstream: string): Promise<FaultyServer> {
  const upstreamOrigin = new URL(upstream).origin;
  const faults: Fault[] = [];
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const open = new Set<ServerResponse>();
  /** Told each time a response finished or lost its connection. */
  const closed = new EventEmitter();

  const server = createServer(async (request, response) => {
    open.add(response);
    response.on('close', () => {
      open.delete(response);
      closed.emit('close');
    });
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const fault = faults.shift() ?? { kind: 'pass' };
    requests.push({
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body,
      at: performance.now(),
      fault: fault.kind,
    });

    switch (fault.kind) {
      case 'reset':
        return void request.socket.destroy();
      case 'hang':
        return;
      case 'status': {
        const text = typeof fault.body === 'string' ? fault.body : JSON.stringify(fault.body);
        response.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
        return void response.end(text);
      }
      case 'malformed':
        response.writeHead(200, { 'content-type': fault.contentType ?? 'application/json' });
        return void response.end(fault.body ?? DEFAULT_MALFORMED_BODY);
      default:
        break;
    }

    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (!HOP_HEADERS.has(name) && typeof value === 'string') headers[name] = value;
    }
    let answer: Response;
    try {
      answer = await fetch(`${upstreamOrigin}${request.url}`, {
        method: request.method ?? 'GET',
        headers,
        ...(body && request.method !== 'GET' ? { body } : {}),
      });
    } catch (error) {
      response.writeHead(599, { 'content-type': 'text/plain' });
      return void response.end(`faulty-server: upstream unreachable: ${String(error)}`);
    }
    const text = await answer.text();
    const relayed: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!HOP_HEADERS.has(name)) relayed[name] = value;
    });
    if (fault.kind === 'pass') {
      response.writeHead(answer.status, relayed);
      return void response.end(text);
    }
    // truncate / end / stall: relay the first events of a server-sent-event stream, keeping their separators.
    const events = text.split(/(?<=\r?\n\r?\n)/);
    response.writeHead(answer.status, relayed);
    response.flushHeaders();
    const relayedEvents = events.slice(0, fault.events);
    for (const event of relayedEvents.slice(0, -1)) response.write(event);
    // What was written reaches the client first, as when a connection dies in the middle of an answer.
    response.write(relayedEvents.at(-1) ?? '', () => {
      if (fault.kind === 'truncate') request.socket.destroy();
      else if (fault.kind === 'end') response.end();
    });
  });

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...more) => void faults.push(...more),
    reset: () => {
      faults.length = 0;
      requests.length = 0;
    },
    openSockets: () => sockets.size,
    inFlight: () => open.size,
    settled: (timeoutMs = 2_000) => {
      if (open.size === 0) return Promise.resolve(0);
      return new Promise<number>((resolve) => {
        const done = () => {
          if (open.size > 0 && !timedOut) return;
          closed.off('close', done);
          clearTimeout(timer);
          resolve(open.size);
        };
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          done();
        }, timeoutMs);
        closed.on('close', done);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClusterWorker } from '../cluster/worker-role.ts';
import type { SwitchyardHandler } from '../handler.ts';
import { createNodeListener } from '../node-adapter.ts';
import type { ServeOptions } from '../start-server.ts';
import type { ServerLog } from './server-log.ts';
import type { Teardown } from './teardown.ts';

/** The HTTP server, bound: where it listens, and what to do with its requests. */
export interface Listening {
  server: Server;
  host: string;
  port: number;
  /** `http://host:port`, without `/v1`. */
  url: string;
  /** Answers every request with `handler` from now on. */
  serve(handler: SwitchyardHandler): void;
  /** Requests received and not yet answered (streams until they end). */
  readonly requestsInFlight: number;
  /** Stops waiting for in-flight requests, in a drain running or to come: they are aborted at once. */
  cutShort(): void;
}

/**
 * Binds `node:http` on `host:port` (its time limits for a client to send a request), and adds its drain to the
 * teardown: stop accepting, let in-flight requests finish (up to `drainTimeoutMs`, or until cut short), abort what
 * still runs so each call ends and is recorded as an error its client sees, then cut the connections.
 */
export async function listen(
  options: ServeOptions,
  log: ServerLog,
  teardown: Teardown,
  worker?: ClusterWorker,
): Promise<Listening> {
  const host = options.host ?? '127.0.0.1';
  // Fetched, not imported: an ES import of node:http reads all its exports, and its WebSocket getter loads Node's
  // own undici (~50 ms of CPU at every start, ~6 MB of RSS), which serve never uses.
  const server = process.getBuiltinModule('node:http').createServer({
    requestTimeout: options.requestTimeoutMs ?? 60_000,
    headersTimeout: Math.min(options.requestTimeoutMs ?? 60_000, 30_000),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A worker of `serve --workers` binds its own socket beside its siblings' (SO_REUSEPORT) where it can: a
    // connection the kernel queued for a worker that dies is reset, where the primary's round robin would hold it
    // forever. Elsewhere it shares the primary's socket (node:cluster).
    const own = worker?.ownSocketPort;
    const where = own === undefined ? { port: options.port ?? 8787 } : { port: own, exclusive: true, reusePort: true };
    server.listen({ ...where, host }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  worker?.listened();
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closing = false;
  let listener: ReturnType<typeof createNodeListener> | undefined;
  let cutShort: () => void = () => undefined;
  const waitCutShort = new Promise<void>((resolve) => (cutShort = resolve));

  const drain = async () => {
    closing = true;
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (listener) {
      await bounded(Promise.race([listener.drained(), waitCutShort]), options.drainTimeoutMs ?? 30_000);
      // Past the deadline: abort what still runs, so each call ends (and is recorded) as an error its client sees,
      // then give those endings a moment to be written before the connections go.
      listener.abortAll('The server is shutting down.');
      await bounded(listener.drained(), 2_000);
    }
    server.closeAllConnections();
    await stopped;
  };
  teardown.add('http server', server, drain);

  return {
    server,
    host,
    port,
    url,
    serve(handler) {
      listener = createNodeListener(handler, {
        origin: url,
        isClosing: () => closing,
        onRequestLogged: (entry) => log.info('request', entry),
        sendTimeoutMs: options.sendTimeoutMs ?? 60_000,
      });
      server.on('request', listener);
      server.on('checkContinue', listener.checkContinue);
    },
    get requestsInFlight() {
      return listener?.inFlight() ?? 0;
    },
    cutShort: () => cutShort(),
  };
}

/** `work`, or nothing once `milliseconds` passed (its timer cleared either way). */
async function bounded(work: Promise<void>, milliseconds: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, milliseconds)));
  try {
    await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

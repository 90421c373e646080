import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import OpenAI from 'openai';
import type { GatewayOptions } from '../../src/index.ts';
import { databasePath, type RunningServer, type ServeOptions, startServer } from '../../src/server/index.ts';
import { type Backends, bounded, catalog, providerSettings } from './harness.ts';

/**
 * The reliability suites through `switchyard serve`: the real server in process (port 0, a temporary data
 * directory, a key made by its own key store), with a gateway whose providers are the fake servers behind their
 * fault-injecting fronts (harness.ts). Clients are the real `openai` SDK (no retries of its own) and raw `fetch`.
 */

export interface ServeRig {
  server: RunningServer;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** An active client key, created through the server's key store. */
  key: string;
  dataDir: string;
  /** Every log line the server wrote (it takes a log function). */
  logs: Array<Record<string, unknown>>;
  openai(apiKey?: string): OpenAI;
  /** `fetch(url + path)` with the key and a JSON body when given. */
  post(path: string, body: unknown, init?: { key?: string | null; signal?: AbortSignal }): Promise<Response>;
  /** Closes the server if still open: drains, then flushes the records. The data directory stays. */
  close(): Promise<void>;
  /** close(), then removes the data directory. */
  stop(): Promise<void>;
}

export type RigOptions = {
  /** Gateway settings over the default ones (fake providers, test catalog, no environment, short backoff). */
  gateway?: NonNullable<ServeOptions['gateway']>;
  mock?: ServeOptions['mock'];
} & Omit<ServeOptions, 'log' | 'port' | 'dataDir' | 'gateway' | 'mock'>;

/** The gateway settings of harness.ts's `gatewayFor`, as `startServer` takes them. */
export function serveGatewayOptions(
  backends: Backends | undefined,
  extra: Partial<GatewayOptions> = {},
): NonNullable<ServeOptions['gateway']> {
  return {
    catalog,
    env: {},
    ...(backends ? { providers: providerSettings(backends) } : {}),
    retry: { initialDelayMs: 5, maxDelayMs: 2_000 },
    ...extra,
  };
}

export async function startServeRig(backends: Backends | undefined, options: RigOptions = {}): Promise<ServeRig> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-serve-reliability-'));
  const logs: Array<Record<string, unknown>> = [];
  const { gateway, ...serve } = options;
  const server = await startServer({
    ...serve,
    gateway: gateway ?? serveGatewayOptions(backends),
    port: 0,
    dataDir,
    log: (line) => logs.push(line),
  });
  const { key } = await server.keys.create('reliability');
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= bounded(server.close(), 15_000, 'server.close()'));
  return {
    server,
    url: server.url,
    key,
    dataDir,
    logs,
    openai: (apiKey = key) => new OpenAI({ baseURL: `${server.url}/v1`, apiKey, maxRetries: 0, timeout: 15_000 }),
    post: (path, body, init = {}) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const useKey = init.key === undefined ? key : init.key;
      if (useKey !== null) headers.authorization = `Bearer ${useKey}`;
      return fetch(`${server.url}${path}`, {
        method: 'POST',
        headers,
        body: typeof body === 'string' ? body : JSON.stringify(body),
        ...(init.signal ? { signal: init.signal } : {}),
      });
    },
    close,
    stop: async () => {
      await close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A response body read to its end (bounded), split into SSE `data:` payloads. */
export async function readSSE(response: Response, ms = 10_000): Promise<{ raw: string; data: string[] }> {
  const raw = await bounded(response.text(), ms, 'the SSE body');
  const data = raw
    .split(/\r?\n\r?\n/)
    .filter((event) => event.trim() !== '')
    .map((event) => event.replace(/^data: ?/, ''));
  return { raw, data };
}

/** The OpenAI error body shape, exactly: `{ error: { message, type, param, code } }` and nothing else. */
export function isOpenAIErrorBody(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Object.keys(body).join() !== 'error') return false;
  const error = (body as { error: unknown }).error;
  if (typeof error !== 'object' || error === null) return false;
  const { message, type, param, code, ...rest } = error as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    typeof message === 'string' &&
    message.length > 0 &&
    typeof type === 'string' &&
    (param === null || typeof param === 'string') &&
    (code === null || typeof code === 'string')
  );
}

/** Rows of a table in the server's SQLite file, read after the server closed. */
export function readTable(
  dataDir: string,
  table: 'calls' | 'api_keys' | 'deployments',
): Array<Record<string, unknown>> {
  const db = new DatabaseSync(databasePath(dataDir), { readOnly: true });
  try {
    return db.prepare(`SELECT * FROM ${table}`).all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}

export interface DripServer {
  /** Base URL for an OpenAI-compatible provider, ending in `/v1`. */
  url: string;
  /** Responses not yet finished and still attached to a connection. */
  inFlight(): number;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible provider that answers slowly: a plain completion after `delayMs`, a stream as `pieces`
 * content chunks `intervalMs` apart, then `[DONE]`. For requests and streams that are still running when the
 * server is told to shut down.
 */
export async function startDripServer(options: {
  delayMs: number;
  intervalMs: number;
  pieces: number;
}): Promise<DripServer> {
  const open = new Set<ServerResponse>();
  const server = createServer(async (request, response) => {
    open.add(response);
    response.on('close', () => open.delete(response));
    let text = '';
    for await (const chunk of request) text += String(chunk);
    const body = JSON.parse(text) as { model: string; stream?: boolean };
    const base = { id: 'chatcmpl-drip', created: 1_760_000_000, model: body.model };
    const usage = { prompt_tokens: 5, completion_tokens: options.pieces, total_tokens: 5 + options.pieces };
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    if (!body.stream) {
      await wait(options.delayMs);
      response.writeHead(200, { 'content-type': 'application/json' });
      const message = { role: 'assistant', content: 'drip '.repeat(options.pieces).trim(), refusal: null };
      return void response.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message, logprobs: null, finish_reason: 'stop' }],
          usage,
        }),
      );
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (delta: Record<string, unknown>, finish: string | null = null) =>
      response.write(
        `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [choiceOf(delta, finish)] })}\n\n`,
      );
    send({ role: 'assistant', content: '' });
    for (let index = 0; index < options.pieces && !response.destroyed; index++) {
      await wait(options.intervalMs);
      send({ content: 'drip ' });
    }
    send({}, 'stop');
    response.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    inFlight: () => open.size,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function choiceOf(delta: Record<string, unknown>, finish: string | null) {
  return { index: 0, delta, logprobs: null, finish_reason: finish };
}

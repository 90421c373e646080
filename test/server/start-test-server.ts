import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { MockProvider } from '../../src/providers/mock/simulator.ts';
import { type RunningServer, type ServeOptions, startServer } from '../../src/server/index.ts';

export interface TestServer {
  server: RunningServer;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** An active API key. */
  key: string;
  dataDir: string;
  /** Every log line the server wrote. */
  logs: Array<Record<string, unknown>>;
  /** The real openai SDK pointed at `{url}/v1`. */
  openai(apiKey?: string): OpenAI;
  /** Closes the server (if still open) and removes the data directory. */
  stop(): Promise<void>;
}

/** `switchyard serve --mock` in process: port 0, a temporary data directory, one key, logs collected. */
export async function startTestServer(
  options: Omit<ServeOptions, 'log' | 'port' | 'dataDir'> & { mock?: boolean | MockProvider } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-serve-'));
  const logs: Array<Record<string, unknown>> = [];
  let server: RunningServer;
  try {
    server = await startServer({ mock: true, ...options, port: 0, dataDir, log: (line) => logs.push(line) });
  } catch (error) {
    // A start the test expects to fail leaves no directory behind either.
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const { key } = await server.keys.create('test');
  return {
    server,
    url: server.url,
    key,
    dataDir,
    logs,
    openai: (apiKey = key) => new OpenAI({ baseURL: `${server.url}/v1`, apiKey, maxRetries: 0 }),
    stop: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A fetch against the test server with the key, JSON body when given. */
export function api(
  test: TestServer,
  path: string,
  init: { method?: string; body?: unknown; key?: string | null; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...init.headers };
  const key = init.key === undefined ? test.key : init.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${test.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
  });
}

/** A request through `node:http`, which (unlike fetch) sends the `Host` header it is given. */
export function rawRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

/** A response body as JSON, loosely typed: the assertions say what it must hold. */
export const jsonOf = (response: Response): Promise<any> => response.json();

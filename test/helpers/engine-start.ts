import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type RunningServer, type ServeOptions, startServer } from '../../src/server/index.ts';

/**
 * Starting `serve` against an engine that may not answer (test/security/redis-start.test.ts, postgres-start.test.ts):
 * in process with every log line kept, or as the CLI with its exit.
 */
export type LogLine = Record<string, unknown>;

export interface LoggedServer {
  server: RunningServer;
  logs: LogLine[];
  /** Closes the server and deletes its data directory. */
  close(): Promise<void>;
}

/**
 * `serve --mock` in process on a data directory of its own; `onLine` hears each log line as it is written. A start
 * that fails rejects with its error, the lines logged until then as its `logs`, and leaves no directory behind.
 */
export async function startLogged(
  options: Partial<ServeOptions>,
  onLine: (line: LogLine) => void = () => undefined,
): Promise<LoggedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-engine-start-'));
  const logs: LogLine[] = [];
  const log = (line: LogLine) => {
    logs.push(line);
    onLine(line);
  };
  try {
    const server = await startServer({ mock: true, port: 0, dataDir, log, ...options });
    const close = async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    };
    return { server, logs, close };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw Object.assign(error as Error, { logs });
  }
}

/** Starts for one test file over `defaults`: each server that started is kept until `closeAll` (its afterEach). */
export function startsOver(defaults: () => Partial<ServeOptions>) {
  const started: LoggedServer[] = [];
  return {
    /** `onLine` hears each log line as it is written. */
    start: async (options: Partial<ServeOptions>, onLine?: (line: LogLine) => void) => {
      const logged = await startLogged({ ...defaults(), ...options }, onLine);
      started.push(logged);
      return logged;
    },
    closeAll: async () => {
      for (const server of started.splice(0)) await server.close();
    },
  };
}

/** A chat call through `server` with a key made for it: the answer's status. */
export async function chatStatus(server: RunningServer): Promise<number> {
  const { key } = await server.keys.create('test');
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** The error of a start expected to fail (with its `logs`), or `undefined` when it started. */
export function failureOf(starting: Promise<LoggedServer>): Promise<(Error & { logs: LogLine[] }) | undefined> {
  return starting.then(
    async (started) => {
      await started.close();
      return undefined;
    },
    (error: Error & { logs: LogLine[] }) => error,
  );
}

/** `switchyard serve --mock <args>` as a user runs it, on a data directory of its own: how it exits. */
export async function serveExit(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stderr: string }> {
  const root = resolve(import.meta.dirname, '../..');
  const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-engine-wait-'));
  try {
    return await promisify(execFile)(
      join(root, 'node_modules/.bin/node'),
      [join(root, 'src/cli.ts'), 'serve', '--mock', '--port', '0', '--data', dataDir, ...args],
      { cwd: root, env: { ...process.env, ...env } },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

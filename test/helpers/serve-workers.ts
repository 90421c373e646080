import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';

/** `switchyard serve --workers …` from source, as a child process: its address, its log, how it ended. */
export interface ServedCluster {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr: () => string;
  /** The log's JSON lines so far. */
  lines: () => Array<Record<string, unknown>>;
  exited: Promise<number | null>;
}

const root = resolve(import.meta.dirname, '../..');
export const node = join(root, 'node_modules/.bin/node');
export const cli = join(root, 'src/cli.ts');

/** Starts the CLI with `args` and waits for its one `listening` line (bounded, to catch a hang). */
export async function serveCluster(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<ServedCluster> {
  const child = spawn(node, [cli, 'serve', '--port', '0', ...args], { cwd: root, env });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (part: string) => (stderr += part));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  // Waits on the log, bounded only to catch a hang; a start that fails says why.
  await new Promise<void>((listening, failed) => {
    const timer = setTimeout(() => failed(new Error(`serve did not listen within 20 s:\n${stderr}`)), 20_000);
    const heard = () => {
      if (!stderr.includes('"msg":"listening"')) return;
      clearTimeout(timer);
      child.stderr.off('data', heard);
      listening();
    };
    child.stderr.on('data', heard);
    void exited.then((code) => failed(new Error(`serve exited (${code}) before it listened:\n${stderr}`)));
  });
  const lines = () =>
    stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const url = lines().find((line) => line.msg === 'listening')!.url as string;
  return { child, url, stderr: () => stderr, lines, exited };
}

/**
 * The official SDK on a new connection for every request (`connection: close`): the kernel spreads connections over
 * the workers' sockets, so successive calls reach every worker instead of the one a kept-alive connection went to.
 */
export function freshClient(url: string, apiKey: string): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0, defaultHeaders: { connection: 'close' } });
}

/** `GET /v1/health` on a new connection: which worker answered. */
export async function healthOf(url: string): Promise<{ worker: { id: number; pid: number } }> {
  const response = await fetch(`${url}/v1/health`, { headers: { connection: 'close' } });
  return (await response.json()) as { worker: { id: number; pid: number } };
}

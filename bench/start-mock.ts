import { type ChildProcess, fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pinned } from './pinning.ts';

/** Starts bench/mock-server.ts in its own process; resolves once it listens. */
export async function startMock(): Promise<{ port: number; stop: () => void }> {
  // execArgv: [] so flags of this process (--cpu-prof, --conditions) do not reach the mock.
  const child = fork(new URL('./mock-server.ts', import.meta.url), [], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`mock provider exited with ${code}`)));
  });
  return { port, stop: () => child.kill() };
}

/** The environment that points a server's OpenAI provider at the mock on `port`. */
export function mockProviderEnv(port: number): { OPENAI_API_KEY: string; OPENAI_BASE_URL: string } {
  return { OPENAI_API_KEY: 'sk-bench', OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` };
}

/**
 * Starts a server under test: `argv` (the executable first) pinned to core 0, run from the project's root, its output
 * dropped, its OpenAI provider at the mock on `mockPort`, with `env` on top.
 */
export function spawnServer(argv: string[], mockPort: number, env: Record<string, string> = {}): ChildProcess {
  const [command, args] = pinned(0, argv);
  return spawn(command, args, {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: 'ignore',
    env: { ...process.env, ...mockProviderEnv(mockPort), ...env },
  });
}

/** POSTs `body` to `url`; throws unless the answer is a 2xx (its body read either way). */
export async function answered(url: string, headers: Record<string, string>, body: string): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 200)}`);
}

/** Calls `call` until it succeeds (a server starting), 100 ms apart; throws its last error after `tries`. */
export async function untilAnswered(call: () => Promise<unknown>, tries = 100): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await call();
      return;
    } catch (error) {
      if (attempt >= tries) throw error;
      await new Promise((done) => setTimeout(done, 100));
    }
  }
}

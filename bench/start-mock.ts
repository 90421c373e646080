import { fork } from 'node:child_process';

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

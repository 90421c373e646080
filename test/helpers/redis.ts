import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';
import { pollUntil } from './poll.ts';

/**
 * A throwaway Redis from Debian's `redis-server` package on a free loopback port, nothing persisted; stopped by
 * `stop`. `undefined` when it is not installed and CI is not set (the caller skips and says so).
 */
export interface ThrowawayRedis {
  url: string;
  stop(): Promise<void>;
  /** Starts it again on the same port (empty) after `stop`: an outage and the engine's return. */
  restart(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections are accepted by the kernel, nothing answers. */
  pause(): void;
  /** Thaws it (SIGCONT). */
  resume(): void;
}

export async function startRedis(): Promise<ThrowawayRedis | undefined> {
  const binary = '/usr/bin/redis-server';
  if (!existsSync(binary)) {
    if (process.env.CI) throw new Error('Redis is required in CI (.ci/run installs the redis-server package).');
    return undefined;
  }
  const port = await freePort();
  // Its own directory: a replica writes the data it syncs there (never in the repository), removed with the server.
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-redis-'));
  const spawnServer = () => {
    mkdirSync(dir, { recursive: true });
    return spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    );
  };
  let server: ReturnType<typeof spawn> | undefined = spawnServer();
  const url = `redis://127.0.0.1:${port}`;
  await waitForRedis(url);
  return {
    url,
    restart: async () => {
      server ??= spawnServer();
      await waitForRedis(url);
    },
    pause: () => void server?.kill('SIGSTOP'),
    resume: () => void server?.kill('SIGCONT'),
    stop: async () => {
      if (server && server.exitCode === null) {
        const exited = new Promise((resolve) => server!.once('exit', resolve));
        server.kill('SIGCONT');
        server.kill('SIGTERM');
        await exited;
      }
      server = undefined;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForRedis(url: string): Promise<void> {
  const { Redis } = await import('ioredis');
  await pollUntil(
    async () => {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => {});
      try {
        await probe.connect();
        await probe.ping();
      } finally {
        probe.disconnect();
      }
    },
    20_000,
    25,
  );
}

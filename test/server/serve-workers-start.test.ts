import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { cli, healthOf, node } from '../helpers/serve-workers.ts';

/**
 * `serve --workers 2` whose workers cannot start. A worker whose start failed (its database unreachable, say) said
 * why and then stayed alive: its channel to the primary kept it running, and it ignores signals (they are the
 * primary's). The primary waited for it forever, and a SIGTERM then never ended either. Now the start fails as a
 * single serve's does, and a stop ordered while a worker starts ends it at once. PostgreSQL on a loopback port
 * nothing listens on: refused at once, every time.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-workers-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const unreachable = 'postgres://switchyard@127.0.0.1:1/app';

/** The CLI as a child: its stderr so far, and how it exits (bounded, to catch the hang this file is about). */
function serveWorkers(args: string[]) {
  const child = spawn(node, [cli, 'serve', '--mock', '--workers', '2', '--port', '0', '--data', dataDir, ...args], {
    env: { ...process.env, SWITCHYARD_DATABASE_URL: '' },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (part: string) => (stderr += part));
  const exited = new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve --workers 2 did not exit within 20 s:\n${stderr}`));
    }, 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  return { child, stderr: () => stderr, exited };
}

describe('serve --workers 2 whose workers cannot start', () => {
  it('fails as a single serve does: the cause once, then every process exits with 1', async () => {
    const served = serveWorkers(['--database', unreachable, '--database-wait', '0']);
    expect(await served.exited).toBe(1);
    const cause = served.stderr().match(/PostgreSQL could not be reached after 1 attempt over .*ECONNREFUSED/g);
    expect(cause).toHaveLength(1);
    expect(served.stderr()).toContain('serve could not start its workers');
  }, 30_000);

  it('SIGTERM while a worker waits for its database: every process exits at once', async () => {
    const served = serveWorkers(['--database', unreachable, '--database-wait', '60']);
    await new Promise<void>((waiting) => {
      const heard = () => served.stderr().includes('postgres not reachable yet; retrying') && waiting();
      served.child.stderr.on('data', heard);
    });
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    expect(served.stderr()).toContain('"msg":"stopped"');
  }, 30_000);
});

describe('serve --workers 2 whose first worker dies while the second starts', () => {
  it('replaces it once the start ends, as it would any worker that died', async () => {
    const port = await freePort();
    const served = serveWorkers(['--port', String(port)]);
    try {
      // The first worker listens alone while the second is forked and loads: it dies in that window.
      let first: { id: number; pid: number } | undefined;
      while (!first)
        first = await healthOf(`http://127.0.0.1:${port}`).then(
          ({ worker }) => worker,
          () => undefined,
        );
      expect(served.stderr()).not.toContain('"msg":"listening"');
      process.kill(first.pid, 'SIGKILL');
      await expect.poll(() => served.stderr(), { timeout: 15_000 }).toContain('"msg":"worker replaced"');
      expect(served.stderr()).toMatch(/"msg":"worker exited; replacing it".*"worker":1/);
      // Worker 1 answers again: the kernel spreads new connections over both workers' sockets.
      const answeredBy = async () => (await healthOf(`http://127.0.0.1:${port}`)).worker.id;
      await expect.poll(answeredBy, { timeout: 10_000 }).toBe(1);
    } finally {
      served.child.kill('SIGTERM');
      await served.exited;
    }
  }, 40_000);
});

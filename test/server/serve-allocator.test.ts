import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { allocatorEnvironment } from '../../src/cli/serve-process.ts';

// serve restarts itself once with jemalloc preloaded when the system has it (docs/serve.md, "Memory"). CI installs
// Debian's libjemalloc2 (.ci/run): there these tests must run; elsewhere they need it installed and a /proc.
const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const cli = join(root, 'src/cli.ts');
const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-allocator-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const jemallocHere = allocatorEnvironment({}) !== undefined && existsSync('/proc/self/maps');

/** Starts `serve --mock` with `env` added; resolves to its /proc maps, environment and command once it listens. */
async function serveWith(
  env: Record<string, string>,
  runtime = node,
): Promise<{ maps: string; environ: string[]; cmdline: string[] }> {
  const child = spawn(runtime, [cli, 'serve', '--mock', '--port', '0', '--data', dataDir], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LD_PRELOAD: '', MALLOC_CONF: '', SWITCHYARD_MALLOC: '', ...env },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  try {
    await expect.poll(() => stderr, { timeout: 15_000 }).toContain('"msg":"listening"');
    return {
      maps: readFileSync(`/proc/${child.pid}/maps`, 'utf8'),
      environ: readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0'),
      cmdline: readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0'),
    };
  } finally {
    child.kill('SIGKILL');
  }
}

describe.runIf(jemallocHere || process.env.CI)('serve on jemalloc', () => {
  it('runs on jemalloc, handing freed pages back at once, when the system has it', async () => {
    expect(allocatorEnvironment({}), 'jemalloc is not installed (Debian: apt-get install libjemalloc2)').toBeDefined();
    const { maps, environ } = await serveWith({});
    expect(maps).toContain('libjemalloc.so.2');
    expect(environ).toContain('MALLOC_CONF=dirty_decay_ms:0,muzzy_decay_ms:0');
  });

  it("keeps the operator's MALLOC_CONF, and glibc's malloc with SWITCHYARD_MALLOC=system", async () => {
    const tuned = await serveWith({ MALLOC_CONF: 'dirty_decay_ms:5000' });
    expect(tuned.maps).toContain('libjemalloc.so.2');
    expect(tuned.environ).toContain('MALLOC_CONF=dirty_decay_ms:5000');

    const system = await serveWith({ SWITCHYARD_MALLOC: 'system' });
    expect(system.maps).not.toContain('jemalloc');
    // Restarted all the same, for its young generation.
    expect(system.environ).toContain('SWITCHYARD_SERVE_REEXECUTED=1');
  });

  // The CLI is Node.js's (docs/runtimes.md), but it runs on Bun: there it must not restart into V8's flags and an
  // allocator measured under Node only. CI names Bun (.ci/run installs it for test/runtimes).
  it.runIf(process.env.SWITCHYARD_BUN || process.env.CI)('does not restart on Bun, nor preload jemalloc', async () => {
    expect(process.env.SWITCHYARD_BUN, 'SWITCHYARD_BUN names the bun binary').toBeDefined();
    const bun = await serveWith({}, process.env.SWITCHYARD_BUN!);
    expect(bun.maps).not.toContain('jemalloc');
    expect(bun.environ).not.toContain('SWITCHYARD_SERVE_REEXECUTED=1');
    expect(bun.cmdline).not.toContain('--max-semi-space-size=8');
  });
});

describe('SWITCHYARD_MALLOC', () => {
  it('refuses a value it does not know at start, rather than ignoring it', async () => {
    const started = promisify(execFile)(node, [cli, 'serve', '--mock', '--port', '0', '--data', dataDir], {
      cwd: root,
      env: { ...process.env, SWITCHYARD_MALLOC: 'glibc' },
    });
    await expect(started).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('SWITCHYARD_MALLOC must be "jemalloc" or "system", not "glibc".'),
    });
  });
});

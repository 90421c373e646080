import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { availableCores, type CgroupFiles, cpuQuota, readCgroupFile } from '../../src/cli/available-cores.ts';
import { cli, node } from '../helpers/serve-workers.ts';

/**
 * `--workers auto` counts the CPUs a container may use, not the host's: Node's `os.availableParallelism()` leaves a
 * cgroup v1 CPU quota out. Against the kernel's own cgroups where this machine lets the test make one (root, the v1
 * `cpu` hierarchy writable, as in CI), and against files laid out as a v2 hierarchy is.
 */
const V1_CPU = '/sys/fs/cgroup/cpu';
const canMakeCgroups = (() => {
  try {
    accessSync(join(V1_CPU, 'cpu.cfs_quota_us'), constants.W_OK);
    return true;
  } catch {
    return false;
  }
})();

const work = mkdtempSync(join(tmpdir(), 'switchyard-cores-'));
const made: string[] = [];
afterAll(() => {
  for (const cgroup of made.reverse()) rmdirSync(cgroup);
  rmSync(work, { recursive: true, force: true });
});

/** `serve --workers auto` started inside `cgroup`: the workers its start line counts (no count: one process). */
async function workersServedIn(cgroup: string): Promise<number> {
  const data = mkdtempSync(join(work, 'data-'));
  const child = spawn(
    'sh',
    ['-c', 'echo $$ > "$CGROUP/cgroup.procs" && exec "$@"', 'sh', node, cli, 'serve', '--mock', '--port', '0'].concat([
      '--data',
      data,
      '--workers',
      'auto',
    ]),
    { env: { ...process.env, CGROUP: cgroup } },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  const line = await new Promise<Record<string, unknown>>((heard, failed) => {
    const timer = setTimeout(() => failed(new Error(`serve did not listen within 20 s:\n${stderr}`)), 20_000);
    child.stderr.on('data', (part: string) => {
      stderr += part;
      const listening = stderr.split('\n').find((text) => text.includes('"msg":"listening"'));
      if (!listening) return;
      clearTimeout(timer);
      heard(JSON.parse(listening) as Record<string, unknown>);
    });
    child.on('exit', (code) => failed(new Error(`serve exited (${code}) before it listened:\n${stderr}`)));
  });
  const exited = new Promise((done) => child.on('exit', done));
  child.kill('SIGTERM');
  await exited;
  return (line.workers as number | undefined) ?? 1;
}

describe.skipIf(!canMakeCgroups)('serve --workers auto in a cgroup v1 with a CPU quota', () => {
  it('starts one worker under half a CPU, set on the parent of its cgroup; as many as the CPUs without', async () => {
    const parent = join(V1_CPU, `switchyard-test-${process.pid}`);
    const inner = join(parent, 'inner');
    mkdirSync(parent);
    made.push(parent);
    mkdirSync(inner);
    made.push(inner);
    expect(await workersServedIn(inner)).toBe(availableParallelism());
    const period = Number(readFileSync(join(parent, 'cpu.cfs_period_us'), 'utf8'));
    writeFileSync(join(parent, 'cpu.cfs_quota_us'), String(period / 2));
    expect(await workersServedIn(inner)).toBe(1);
  }, 60_000);
});

describe('the CPU quota read from a cgroup v2 hierarchy', () => {
  /** A hierarchy mounted at `mount` whose root is `root`, the process in `path`, with `cpu.max` files as given. */
  function hierarchy(root: string, path: string, limits: Record<string, string>): CgroupFiles {
    const mount = mkdtempSync(join(work, 'cgroup2 '));
    for (const [directory, max] of Object.entries(limits)) {
      mkdirSync(join(mount, directory), { recursive: true });
      writeFileSync(join(mount, directory, 'cpu.max'), `${max}\n`);
    }
    const escaped = mount.replaceAll(' ', '\\040');
    return {
      cgroup: `12:cpuset:/\n0::${path}\n`,
      mountinfo: `30 23 0:26 ${root} ${escaped} rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n`,
      read: readCgroupFile,
    };
  }

  it('takes the lowest quota along the ancestors, as CPUs a period', () => {
    const files = hierarchy('/', '/kubepods/pod1/app', {
      kubepods: 'max 100000',
      'kubepods/pod1': '150000 100000',
      'kubepods/pod1/app': 'max 100000',
    });
    expect(cpuQuota(files)).toBe(1.5);
    expect(availableCores(files)).toBe(Math.min(2, availableParallelism()));
  });

  it('reads a container’s own cgroup as the mount’s root, and a quota under one CPU as one core', () => {
    const files = hierarchy('/kubepods/pod1/app', '/kubepods/pod1/app', { '.': '20000 100000' });
    expect(cpuQuota(files)).toBe(0.2);
    expect(availableCores(files)).toBe(1);
  });

  it('counts every CPU when nothing caps it, or when the files cannot be read', () => {
    expect(cpuQuota(hierarchy('/', '/app', { app: 'max 100000', '.': 'max 100000' }))).toBeUndefined();
    expect(cpuQuota(hierarchy('/', '/app', {}))).toBeUndefined();
    expect(cpuQuota({ cgroup: '0::/elsewhere\n', mountinfo: '', read: () => undefined })).toBeUndefined();
    expect(availableCores(undefined)).toBe(availableParallelism());
  });
});

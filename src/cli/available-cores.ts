import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';

/** How the cgroup files are read: the real ones, or a test's. */
export interface CgroupFiles {
  /** `/proc/self/cgroup`: which cgroup the process is in, per hierarchy. */
  cgroup: string;
  /** `/proc/self/mountinfo`: where each hierarchy is mounted. */
  mountinfo: string;
  /** A file's text, or `undefined` when it cannot be read. */
  read(path: string): string | undefined;
}

/**
 * The cores `--workers auto` counts: the CPUs this process may run on (`os.availableParallelism()`, its affinity
 * mask), or fewer when its cgroup caps its CPU time (`docker --cpus`, a Kubernetes CPU limit): the quota over the
 * period, rounded up, the lowest along the cgroup's ancestors. Node's own count leaves such a cap out on cgroup v1
 * (Node 24 on a 2-CPU cgroup v1 host counts 2 under a one-CPU quota), and a worker per host core in a one-CPU
 * container would only share that CPU.
 */
export function availableCores(files: CgroupFiles | undefined = ownCgroupFiles()): number {
  const cpus = availableParallelism();
  const capped = files ? cpuQuota(files) : undefined;
  return capped === undefined ? cpus : Math.max(1, Math.min(cpus, Math.ceil(capped)));
}

/** The CPUs the process's cgroup may use in a period (`1.5` for 150 ms per 100 ms), or `undefined` if uncapped. */
export function cpuQuota(files: CgroupFiles): number | undefined {
  let lowest: number | undefined;
  for (const { directory, mountPoint, version } of cpuCgroupDirectories(files)) {
    // A parent's cap holds its children too: walk up to the hierarchy's mount point.
    for (let at = directory; ; at = dirname(at)) {
      const quota = version === 2 ? quotaV2(files.read(join(at, 'cpu.max'))) : quotaV1(files, at);
      if (quota !== undefined) lowest = Math.min(lowest ?? quota, quota);
      if (at === mountPoint || !at.startsWith(mountPoint)) break;
    }
  }
  return lowest;
}

/** `cpu.max` (v2): `max 100000` is uncapped, `150000 100000` is 1.5 CPUs. */
function quotaV2(text: string | undefined): number | undefined {
  const [quota, period] = (text ?? '').trim().split(/\s+/);
  return ratio(Number(quota), Number(period));
}

/** `cpu.cfs_quota_us` over `cpu.cfs_period_us` (v1); a quota of -1 is uncapped. */
function quotaV1(files: CgroupFiles, at: string): number | undefined {
  const quota = Number(files.read(join(at, 'cpu.cfs_quota_us'))?.trim());
  const period = Number(files.read(join(at, 'cpu.cfs_period_us'))?.trim());
  return ratio(quota, period);
}

function ratio(quota: number, period: number): number | undefined {
  return Number.isFinite(quota) && quota > 0 && Number.isFinite(period) && period > 0 ? quota / period : undefined;
}

/**
 * The directories holding the process's CPU controller: the v1 hierarchy with `cpu` among its controllers, and the v2
 * one (where the controller may be enabled or not: an absent `cpu.max` reads as uncapped). Each is the mount point
 * joined with the process's path relative to the mount's root (a container sees its own cgroup as the root).
 */
function cpuCgroupDirectories(files: CgroupFiles): Array<{ directory: string; mountPoint: string; version: 1 | 2 }> {
  const mounts = files.mountinfo
    .split('\n')
    .map((line) => {
      // `id parent major:minor root mount-point options [optional…] - type source super-options`
      const [before, after] = line.split(' - ');
      const fields = before?.split(' ') ?? [];
      const [type, , superOptions] = after?.split(' ') ?? [];
      return { root: mountPath(fields[3]), mountPoint: mountPath(fields[4]), type, options: superOptions?.split(',') };
    })
    .filter((mount) => mount.root && mount.mountPoint);
  const found: Array<{ directory: string; mountPoint: string; version: 1 | 2 }> = [];
  for (const line of files.cgroup.split('\n')) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    const [, , controllers, path] = match as unknown as [string, string, string, string];
    const version = controllers === '' ? 2 : 1;
    if (version === 1 && !controllers.split(',').includes('cpu')) continue;
    const mount = mounts.find((candidate) =>
      version === 2
        ? candidate.type === 'cgroup2'
        : candidate.type === 'cgroup' && candidate.options?.includes('cpu') === true,
    );
    if (!mount) continue;
    const inside = relative(mount.root!, path);
    if (inside.startsWith('..')) continue;
    found.push({ directory: join(mount.mountPoint!, inside), mountPoint: mount.mountPoint!, version });
  }
  return found;
}

/** mountinfo escapes a space, tab, newline and backslash in a path as an octal `\040`. */
function mountPath(field: string | undefined): string | undefined {
  return field?.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** A cgroup file's text, or `undefined` when it cannot be read (no such controller file, or not Linux). */
export function readCgroupFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** This process's cgroup files on Linux; `undefined` elsewhere (no cgroups: the affinity mask is the count). */
function ownCgroupFiles(): CgroupFiles | undefined {
  const cgroup = readCgroupFile('/proc/self/cgroup');
  const mountinfo = readCgroupFile('/proc/self/mountinfo');
  return cgroup === undefined || mountinfo === undefined ? undefined : { cgroup, mountinfo, read: readCgroupFile };
}

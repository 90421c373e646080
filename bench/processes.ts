import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export { freePort } from '../test/helpers/free-port.ts';

/** What the server benchmarks read of their processes: from /proc (Linux), and a free loopback port to start on. */

/** A process's resident memory in MB; NaN once it is gone (a worker replaced). */
export function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** The processes whose parent is `pid` (the cluster's workers). */
export function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/**
 * A process's CPU seconds so far (utime + stime of every thread), the kernel's part (stime), and the part of its
 * helper threads: all but the main one, which in Node are V8's (parallel and concurrent garbage collection,
 * background compilation) and libuv's pool. All zero for a process that is gone.
 */
export function cpuSeconds(pid: number): { all: number; kernel: number; helpers: number } {
  try {
    const [whole, main] = [`/proc/${pid}/stat`, `/proc/${pid}/task/${pid}/stat`].map((path) => {
      const stat = readFileSync(path, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return { user: Number(fields[11]) / TICKS_PER_SECOND, kernel: Number(fields[12]) / TICKS_PER_SECOND };
    });
    const all = whole!.user + whole!.kernel;
    return { all, kernel: whole!.kernel, helpers: all - main!.user - main!.kernel };
  } catch {
    return { all: 0, kernel: 0, helpers: 0 };
  }
}

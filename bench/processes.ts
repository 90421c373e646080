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

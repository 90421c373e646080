import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

/**
 * `SWITCHYARD_DEBUG_MEMORY=<seconds>`: `serve` logs where its memory is every that many seconds, as a JSON line on
 * stderr (level `debug`, msg `memory`): RSS, V8's heap used and committed per space, external and ArrayBuffer
 * memory, and the garbage collections since the start (count and pause time by kind). It is how
 * docs/performance.md's memory table was measured; off unless the variable is set.
 */
export function logMemoryWhenAsked(env: NodeJS.ProcessEnv = process.env): void {
  const seconds = Number(env.SWITCHYARD_DEBUG_MEMORY);
  if (!(seconds > 0)) return;
  const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
  // Node's gc entries: kind 1 is a scavenge (the young generation), the others mark the old one.
  const gc = { scavenges: 0, scavengeMs: 0, marks: 0, markMs: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === 1) {
        gc.scavenges += 1;
        gc.scavengeMs += entry.duration;
      } else {
        gc.marks += 1;
        gc.markMs += entry.duration;
      }
    }
  }).observe({ entryTypes: ['gc'] });
  const timer = setInterval(() => {
    const usage = process.memoryUsage();
    const spaces = Object.fromEntries(
      v8
        .getHeapSpaceStatistics()
        .map((space) => [space.space_name, { used: mb(space.space_used_size), size: mb(space.space_size) }]),
    );
    const line = {
      time: new Date().toISOString(),
      level: 'debug',
      msg: 'memory',
      pid: process.pid,
      rssMb: mb(usage.rss),
      heapUsedMb: mb(usage.heapUsed),
      heapTotalMb: mb(usage.heapTotal),
      externalMb: mb(usage.external),
      arrayBuffersMb: mb(usage.arrayBuffers),
      spaces,
      gc: { ...gc, scavengeMs: Math.round(gc.scavengeMs), markMs: Math.round(gc.markMs) },
    };
    process.stderr.write(`${JSON.stringify(line)}\n`);
  }, seconds * 1000);
  timer.unref();
}

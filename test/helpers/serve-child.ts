import { type ServeOptions, startServer } from '../../src/server/index.ts';

/**
 * `startServer` in a process of its own, for tests of what it leaves open. Starts with the options of argv[2] (JSON),
 * closes the server when it started, then prints one JSON line: the start's error, the log lines, and what still keeps
 * the process's event loop alive (`process.getActiveResourcesInfo()` but the standard streams: nothing, when everything
 * opened was closed). A socket closed at the end takes a few turns to go: it is waited for, up to 5 s (less than
 * pg's 10 s idle timeout, which would close a pool left open by itself).
 */
const options = JSON.parse(process.argv[2] ?? '{}') as ServeOptions;
const lines: Array<Record<string, unknown>> = [];
let error: string | undefined;
try {
  const server = await startServer({ ...options, log: (line) => lines.push(line) });
  await server.close();
} catch (thrown) {
  error = thrown instanceof Error ? thrown.message : String(thrown);
}
const STANDARD_STREAMS = new Set(['PipeWrap', 'TTYWrap']);
const resources = () => process.getActiveResourcesInfo().filter((resource) => !STANDARD_STREAMS.has(resource));
for (const until = performance.now() + 5_000; resources().length > 0 && performance.now() < until; )
  await new Promise((resolve) => setTimeout(resolve, 10));
console.log(JSON.stringify({ error, lines, resources: resources() }));

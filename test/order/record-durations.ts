import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';

/**
 * Writes durations.json, the file times `longest-first.ts` orders a clean clone's run by, from a vitest JSON report:
 * `vitest run --reporter=json --outputFile=report.json`, then `node test/order/record-durations.ts report.json`.
 * Files under a second are left out (their order hardly matters); a file run by both projects counts its longer time.
 */
const root = resolve(import.meta.dirname, '../..');
const report = JSON.parse(await readFile(process.argv[2] ?? 'report.json', 'utf8')) as {
  testResults: Array<{ name: string; startTime: number; endTime: number }>;
};
const seconds: Record<string, number> = {};
for (const { name, startTime, endTime } of report.testResults) {
  const file = relative(root, name);
  seconds[file] = Math.max(seconds[file] ?? 0, Math.round((endTime - startTime) / 100) / 10);
}
const long = Object.entries(seconds)
  .filter(([, time]) => time >= 1)
  .sort(([a, timeA], [b, timeB]) => timeB - timeA || a.localeCompare(b));
writeFileSync(resolve(import.meta.dirname, 'durations.json'), `${JSON.stringify(Object.fromEntries(long), null, 2)}\n`);
console.log(`${long.length} files of a second or more, ${Object.keys(seconds).length} in the report`);

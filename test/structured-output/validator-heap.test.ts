import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const script = fileURLToPath(new URL('./validator-heap.script.ts', import.meta.url));

// In its own process, with --expose-gc, so the figure is the gateway's and not the test runner's.
it('20,000 distinct response schemas grow the heap by less than 30 MB after GC', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', script, '20000'], {
    timeout: 120_000,
  });
  const { schemas, growthMB } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { schemas: number; growthMB: number };
  console.log(`heap growth after ${schemas} distinct schemas: ${growthMB.toFixed(1)} MB`);
  expect(schemas).toBe(20_000);
  expect(growthMB).toBeLessThan(30);
}, 130_000);

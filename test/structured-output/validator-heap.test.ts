import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const script = fileURLToPath(new URL('./validator-heap.script.ts', import.meta.url));

// In its own process, with --expose-gc, so the figure is the gateway's and not the test runner's. Both ways a schema is
// held: the default (`auto`: interpreted while cold) and ajv's compiled functions (a schema turned hot, or `ajv`).
for (const schemaValidator of ['auto', 'ajv'] as const)
  it(`20,000 distinct response schemas grow the heap by less than 30 MB after GC (${schemaValidator})`, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', script, '20000', schemaValidator], {
      timeout: 120_000,
    });
    const { schemas, growthMB } = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      schemas: number;
      growthMB: number;
    };
    console.log(`heap growth after ${schemas} distinct schemas (${schemaValidator}): ${growthMB.toFixed(1)} MB`);
    expect(schemas).toBe(20_000);
    expect(growthMB).toBeLessThan(30);
  }, 130_000);

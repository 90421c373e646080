import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const script = fileURLToPath(new URL('./validator-heap.script.ts', import.meta.url));

// In its own process, with --expose-gc, so the figure is the gateway's and not the test runner's. Both ways a schema is
// held: the default (`auto`: interpreted while cold) and ajv's compiled functions (a schema turned hot, or `ajv`).
// 4,000 schemas are 15 times the cache (256) and its ajv engines' lifetime (256 compilations); the bound, 1.5 kB a
// schema, is the one 20,000 schemas had under 30 MB (the leak this guards against held 6.4 kB a schema: 127.7 MB
// after 20,000). A fifth of the schemas: ajv's compilations were 17 s of the suite's CPU.
const SCHEMAS = 4_000;
const BOUND_MB = (SCHEMAS * 1.5) / 1024;
const title = (schemaValidator: string) =>
  `${SCHEMAS.toLocaleString('en')} distinct response schemas grow the heap by less than ${BOUND_MB.toFixed(1)} MB ` +
  `after GC (${schemaValidator})`;
for (const schemaValidator of ['auto', 'ajv'] as const)
  it(title(schemaValidator), async () => {
    const args = ['--expose-gc', script, String(SCHEMAS), schemaValidator];
    const { stdout } = await promisify(execFile)(process.execPath, args, {
      timeout: 120_000,
    });
    const { schemas, growthMB } = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      schemas: number;
      growthMB: number;
    };
    console.log(`heap growth after ${schemas} distinct schemas (${schemaValidator}): ${growthMB.toFixed(1)} MB`);
    expect(schemas).toBe(SCHEMAS);
    expect(growthMB).toBeLessThan(BOUND_MB);
  }, 130_000);

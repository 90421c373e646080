// Run by validator-heap.test.ts as `node --expose-gc`: heap growth after GC across many distinct response schemas.
import { createGateway } from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';

const count = Number(process.argv[2] ?? 4_000);
// `auto` (the default: the interpreter until a schema is used often) or `ajv` (every schema compiled).
const schemaValidator = (process.argv[3] ?? 'auto') as 'auto' | 'ajv';
// Records off (the in-memory sink holds its own bounded share of requests) and the simulator's log of calls emptied
// after each: what is measured is what the schemas leave behind.
const mock = createMockProvider({ respond: () => ({ content: '{"n":1}' }) });
const gateway = createGateway({ mock, records: false, schemaValidator });
const gc = (globalThis as { gc?: () => void }).gc!;

async function call(index: number): Promise<void> {
  // Every schema differs (its own property and $id), as schemas built per request from caller data would.
  const schema = {
    $id: `https://example.com/schemas/${index}.json`,
    type: 'object',
    properties: { n: { type: 'integer' }, [`field_${index}`]: { type: 'string', description: `Field ${index}` } },
    required: ['n'],
  };
  await gateway.createCompletion({
    model: 'claude-sonnet-4-5',
    messages: [{ role: 'user', content: 'n?' }],
    response_format: { type: 'json_schema', json_schema: { name: 'n', schema } },
  });
  mock.calls.length = 0;
}

// Warm up: engines, formats, the gateway's own caches.
for (let index = 0; index < 500; index += 1) await call(-1 - index);
gc();
const before = process.memoryUsage().heapUsed;
for (let index = 0; index < count; index += 1) await call(index);
gc();
gc();
const after = process.memoryUsage().heapUsed;
console.log(JSON.stringify({ schemaValidator, schemas: count, growthMB: (after - before) / 1024 / 1024 }));

/**
 * What checking an answer against a JSON Schema costs, per engine and per way a schema is used: compiled and checked
 * once (a schema built per request, never seen again), and checked again with the schema already compiled (a hot
 * schema). `auto` is the gateway's default: the interpreter while a schema is cold, ajv once it is used
 * `AJV_AFTER_USES` times (src/structured-output/json-schema-validator.ts). In microseconds of one thread, medians of
 * five rounds:
 *
 *   node bench/schema-validators.ts [--schemas 2000]
 */
import { parseArgs } from 'node:util';
import { compileSchema, type SchemaValidatorSetting } from '../src/structured-output/json-schema-validator.ts';

const { values: args } = parseArgs({ options: { schemas: { type: 'string', default: '2000' } } });
const schemas = Number(args.schemas);

let unique = 0;
/** A 10-property schema of the kind structured outputs carry, made distinct by a description. */
const freshSchema = () => ({
  type: 'object',
  properties: {
    name: { type: 'string', description: `schema ${unique++}` },
    email: { type: 'string', format: 'email' },
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 }, price: { type: 'number' } },
        required: ['sku', 'qty'],
        additionalProperties: false,
      },
    },
    status: { enum: ['open', 'closed'] },
    note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
  required: ['name', 'items', 'status'],
  additionalProperties: false,
});
const answer = {
  name: 'Ada',
  email: 'ada@example.com',
  items: [
    { sku: 'a', qty: 2, price: 1.5 },
    { sku: 'b', qty: 1 },
  ],
  status: 'open',
  note: null,
};

function microseconds(times: number, run: () => void): number {
  const started = performance.now();
  for (let index = 0; index < times; index++) run();
  return ((performance.now() - started) * 1000) / times;
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rows: Array<Record<string, string | number>> = [];
for (const engine of ['ajv', 'interpreter', 'auto'] as const satisfies readonly SchemaValidatorSetting[]) {
  // Warm up the engine itself (its instances, formats, the JIT) before measuring.
  for (let index = 0; index < 300; index++) compileSchema(freshSchema(), 'schema', engine).validate(answer);
  const once: number[] = [];
  const hot: number[] = [];
  for (let round = 0; round < 5; round++) {
    once.push(microseconds(schemas, () => compileSchema(freshSchema(), 'schema', engine).validate(answer)));
    const schema = freshSchema();
    for (let use = 0; use < 100; use++) compileSchema(schema, 'schema', engine);
    const validator = compileSchema(schema, 'schema', engine);
    hot.push(microseconds(20_000, () => validator.validate(answer)));
  }
  rows.push({
    engine,
    'compiled and checked once (µs)': median(once).toFixed(0),
    'checked, hot (µs)': median(hot).toFixed(2),
  });
}
console.table(rows);

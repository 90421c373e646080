import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { MAX_JSON_DEPTH } from '../../src/server/read-json-body.ts';
import { SCHEMA_LIMITS } from '../../src/structured-output/schema-limits.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { bounded, guardUnhandledRejections } from './harness.ts';
import { isOpenAIErrorBody, type ServeRig, startServeRig } from './serve-harness.ts';

/**
 * Schema limits through `switchyard serve`. Compiling a JSON Schema validator takes time that grows faster than
 * the schema's depth (about 20 s at 2,500 levels), and it is synchronous: one request would stall every other.
 * The server refuses schemas nested deeper than 64 levels (JSON objects and arrays) or holding more than 5,000 JSON
 * values, in `response_format`, in tool parameters and in deployments it is given, with a 400 naming the limit,
 * before anything is compiled. Schemas within the limits, even the costly shapes, are answered within a bound.
 */

guardUnhandledRejections();
const timings: string[] = [];
let rig: ServeRig;
beforeAll(async () => {
  rig = await startServeRig(undefined, { mock: true, gateway: { env: {} } });
});
afterAll(async () => {
  await rig?.stop();
  console.log(`serve limits:\n  ${timings.join('\n  ')}`);
});

const messages = [{ role: 'user' as const, content: 'fill it' }];
/** `levels` nested objects: JSON depth 2 × levels + 1. */
function deepSchema(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = { type: 'string' };
  for (let level = 0; level < levels; level++) node = { type: 'object', properties: { a: node }, required: ['a'] };
  return node;
}
/** An object schema with `count` properties: 3 × count + 4 JSON values or so. */
function wideSchema(count: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let index = 0; index < count; index++)
    properties[`p${index}`] = { type: index % 3 === 0 ? 'integer' : 'string' };
  return { type: 'object', properties, required: Object.keys(properties).slice(0, 10), additionalProperties: false };
}
const withSchema = (schema: unknown, stream = false) => ({
  model: 'gpt-4o-latest',
  messages,
  stream,
  response_format: { type: 'json_schema', json_schema: { name: 'big', schema } },
});
const withTool = (parameters: unknown) => ({
  model: 'gpt-4o-latest',
  messages,
  tools: [{ type: 'function', function: { name: 'fill', parameters } }],
  tool_choice: 'required',
});

/** A request's status and body, with the time it took and the longest event-loop stall while it ran. */
async function timed(
  name: string,
  send: () => Promise<Response>,
): Promise<{ status: number; body: any; ms: number; stallMs: number }> {
  // The longest gap between ticks of a 5 ms timer: how long the event loop was blocked at a stretch.
  let last = performance.now();
  let longestGap = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - last);
    last = now;
  }, 5);
  const started = performance.now();
  const response = await bounded(send(), 30_000, name);
  const text = await bounded(response.text(), 30_000, name);
  const ms = Math.round(performance.now() - started);
  clearInterval(ticker);
  const stallMs = Math.round(Math.max(longestGap, performance.now() - last));
  timings.push(`${name} → ${response.status} in ${ms} ms (event loop stalled up to ${stallMs} ms)`);
  const body = response.headers.get('content-type')?.startsWith('text/event-stream') ? text : JSON.parse(text);
  return { status: response.status, body, ms, stallMs };
}

describe('over the limits: 400 naming the limit, before any compiling', () => {
  const cases: Array<[string, unknown, string, string]> = [
    // Past the body's nesting bound (128), the body is refused before it is parsed, naming the field.
    ['response_format schema 2,500 levels deep', withSchema(deepSchema(2_500)), 'response_format', 'json_too_deep'],
    [
      'response_format schema 2,500 levels deep, streamed',
      withSchema(deepSchema(2_500), true),
      'response_format',
      'json_too_deep',
    ],
    [
      'response_format schema 50 levels deep (JSON depth 101)',
      withSchema(deepSchema(50)),
      'response_format.json_schema.schema',
      'schema_too_deep',
    ],
    [
      'response_format schema at JSON depth 65',
      withSchema(deepSchema(32)),
      'response_format.json_schema.schema',
      'schema_too_deep',
    ],
    [
      'response_format schema with 10,000 properties',
      withSchema(wideSchema(10_000)),
      'response_format.json_schema.schema',
      'schema_too_large',
    ],
    // As text: JSON.stringify of a value this deep overflows the client's stack.
    [
      'tool parameters 25,000 levels deep',
      JSON.stringify(withTool('DEEP')).replace(
        '"DEEP"',
        `${'{"type":"object","properties":{"a":'.repeat(25_000)}{"type":"string"}${'}}'.repeat(25_000)}`,
      ),
      'tools',
      'json_too_deep',
    ],
    ['tool parameters 50 levels deep', withTool(deepSchema(50)), 'tools[0].function.parameters', 'schema_too_deep'],
    [
      'tool parameters with 10,000 properties',
      withTool(wideSchema(10_000)),
      'tools[0].function.parameters',
      'schema_too_large',
    ],
  ];
  it.each(cases)('%s', async (name, body, param, code) => {
    const { status, body: answer, ms } = await timed(name, () => rig.post('/v1/chat/completions', body));
    expect(status).toBe(400);
    expect(isOpenAIErrorBody(answer)).toBe(true);
    expect(answer.error).toMatchObject({ type: 'invalid_request_error', param, code });
    const limit = { schema_too_deep: SCHEMA_LIMITS.maxDepth, schema_too_large: SCHEMA_LIMITS.maxNodes }[code];
    expect(answer.error.message).toContain(String(limit ?? MAX_JSON_DEPTH));
    // A hang guard, generous for two shared cores: the check itself takes a few milliseconds.
    expect(ms).toBeLessThan(5_000);
  });

  it('through the openai SDK: BadRequestError with the param', async () => {
    const error = await rig
      .openai()
      .chat.completions.create(withSchema(deepSchema(50)) as never)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400, code: 'schema_too_deep', param: 'response_format.json_schema.schema' });
  });

  it('the server keeps answering others while it refuses a 2,500-level schema', async () => {
    const refusing = timed('2,500 levels, with a concurrent /v1/models', () =>
      rig.post('/v1/chat/completions', withSchema(deepSchema(2_500))),
    );
    const other = await bounded(fetch(`${rig.url}/v1/models`), 5_000, '/v1/models');
    expect(other.status).toBe(200);
    const { status, stallMs } = await refusing;
    expect(status).toBe(400);
    expect(stallMs).toBeLessThan(2_000);
  });

  it.each([
    [
      'output schema',
      { output_schema: { json_schema: { type: 'object', properties: { a: deepSchema(50) } } } },
      'version.output_schema.json_schema',
    ],
    [
      'tool',
      { tools: [{ type: 'function', function: { name: 't', parameters: wideSchema(6_000) } }] },
      'version.tools[0].function.parameters',
    ],
  ] as const)('PUT /v1/deployments with an oversized %s → 400', async (_what, version, param) => {
    const deployment = makeDeployment({ agent_id: 'oversized' }, version as never);
    const response = await bounded(
      fetch(`${rig.url}/v1/deployments/${encodeURIComponent(deployment.id)}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${rig.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(deployment),
      }),
    );
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    // validateDeployment measures schemas before parsing, for every store: the message names the field and the limit.
    expect(error.code).toBe('invalid_deployment');
    expect(error.message).toContain(param);
    expect(error.message).toMatch(/levels deep|JSON values/);
  });
});

describe('within the limits: answered, within a bound', () => {
  function itemsChain(depth: number): Record<string, unknown> {
    let node: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < depth; level++) node = { type: 'array', items: node };
    return { type: 'object', properties: { a: node }, required: ['a'] };
  }
  const anyOfWide = {
    type: 'object',
    properties: {
      v: {
        anyOf: Array.from({ length: 600 }, (_, index) => ({
          type: 'object',
          properties: { [`k${index}`]: { const: index } },
          required: [`k${index}`],
        })),
      },
    },
    required: ['v'],
  };
  const cases: Array<[string, unknown]> = [
    ['JSON depth 63 (31 nested objects)', withSchema(deepSchema(31))],
    ['an items chain at JSON depth 63', withSchema(itemsChain(60))],
    ['1,600 properties (about 4,800 values)', withSchema(wideSchema(1_600))],
    ['anyOf of 600 branches (about 4,200 values)', withSchema(anyOfWide)],
    ['tool parameters at JSON depth 63', withTool(deepSchema(31))],
  ];
  it.each(cases)(
    '%s',
    async (name, body) => {
      const { status, ms } = await timed(name, () => rig.post('/v1/chat/completions', body));
      expect(status).toBe(200);
      expect(ms).toBeLessThan(10_000);
    },
    30_000,
  );
});

describe('the limits hold for every entry point (library validation)', () => {
  // validateRequest applies the limits, so in-process callers are protected as well as the server.
  it('in process, createCompletion refuses a response_format schema deeper than 64 levels with a 400', async () => {
    const gateway = createGateway({ mock: true, records: false });
    const error = await gateway.createCompletion(withSchema(deepSchema(40)) as never).then(
      () => 'answered',
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ status: 400, code: 'schema_too_deep' });
  });

  // validateDeployment measures schemas for every store, so a deployment file over the limits is refused at load.
  it('through serve, a deployment from a directory whose output schema is 100 levels deep is refused', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'switchyard-deep-deployments-'));
    const deployment = makeDeployment(
      { agent_id: 'deepdir' },
      { output_schema: { json_schema: { type: 'object', properties: { a: deepSchema(100) } } } },
    );
    writeFileSync(join(directory, 'deepdir-production-1.json'), JSON.stringify(deployment));
    const fromDirectory = await startServeRig(undefined, { mock: true, gateway: { env: {} }, deployments: directory });
    try {
      const response = await bounded(
        fromDirectory.post('/v1/chat/completions', {
          model: `switchyard/deployment/${deployment.id}`,
          input: { product: 'x', ticket: 'y' },
        }),
        30_000,
      );
      // A stored file over the limits is the store's fault, not the caller's: refused at load, as a 500 naming it.
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(response.status).toBe(500);
      expect(error).toMatchObject({ code: 'invalid_deployment' });
      expect(error.message).toContain('levels deep');
    } finally {
      await fromDirectory.stop();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeListener } from '../../src/server/index.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { anyCodePoint } from '../helpers/code-points.ts';
import { guardUnhandledRejections } from './harness.ts';
import { BASES, mutate, mutation, safeStringify } from './request-fuzz.ts';
import { type FuzzRig, MAX_BODY_BYTES, type RawRequest, startFuzzRig } from './serve-fuzz-rig.ts';

/**
 * Raw HTTP fuzzing of `switchyard serve` (the simulator behind it, so nothing is slow but the server itself), beside
 * the fuzzed requests fuzz.test.ts sends on both surfaces: random and mutated JSON bodies, non-JSON and binary
 * bodies, wrong content types, bodies over the size limit, deep nesting, odd Unicode, duplicate keys, `__proto__`
 * keys, random paths, query strings, methods and keys. Every request must be answered, within a bound, with a
 * success or a 4xx whose body is an OpenAI error body (JSON-RPC errors on /mcp): never a 5xx, never a hang, never a
 * polluted Object.prototype, never an "unexpected error" in the log (serve-fuzz-rig.ts). Afterwards the server still
 * answers. Fixed seed; counts are printed.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
/** Fewer than the 1,500 of before: fuzz.test.ts sends the mutated requests over HTTP now, this file the rest. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_100);

guardUnhandledRejections();

let fuzz: FuzzRig;
beforeAll(async () => {
  fuzz = await startFuzzRig();
});
afterAll(() => {
  console.log(`serve fuzz: ${JSON.stringify({ ...fuzz.counts, ...counts })}`);
});

const counts = { edgeCases: 0, crashingPathsLeftOut: 0 };
const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const json = { 'content-type': 'application/json' };

const PROTO = ['__proto__', 'constructor', 'prototype'];

/** Text-level bodies JSON.stringify cannot make: duplicate keys, `__proto__` keys, deep nesting, broken JSON. */
const rawText: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(...BASES),
      fc.constantFrom('"model":"nope"', '"stream":"yes"', '"messages":null', '"model":"gpt-4o-latest"'),
    )
    .map(([base, duplicate]) => `{${duplicate},${JSON.stringify(base).slice(1)}`),
  fc
    .tuple(fc.constantFrom(...BASES), fc.constantFrom(...PROTO))
    .map(([base, key]) => `{"${key}":{"polluted":"yes","role":"user"},${JSON.stringify(base).slice(1)}`),
  fc
    .tuple(fc.constantFrom(...BASES), fc.integer({ min: 10, max: 20_000 }), fc.constantFrom('[', '{"a":'))
    .map(([base, depth, open]) => {
      const close = open === '[' ? ']' : '}';
      return `${JSON.stringify(base).slice(0, -1)},"input":{"deep":${open.repeat(depth)}1${close.repeat(depth)}}}`;
    }),
  fc.tuple(fc.constantFrom(...BASES), fc.nat()).map(([base, cut]) => {
    const text = JSON.stringify(base);
    return text.slice(0, cut % text.length);
  }),
  fc.constantFrom(
    '',
    ' ',
    'null',
    '[]',
    '"text"',
    '1e999',
    '{}',
    '\uFEFF{"model":"gpt-4o-latest","messages":[{"role":"user","content":"hi"}]}',
    '{"model":"gpt-4o-latest","messages":[{"role":"user","content":"hi"}]}garbage',
    'model=gpt-4o&messages=hi',
  ),
  fc.string({ unit: anyCodePoint, maxLength: 200 }),
  fc.json({ maxDepth: 4 }),
);

/** Over MAX_BODY_BYTES: must be a 413, however the rest looks. */
const hugeText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...BASES), fc.integer({ min: MAX_BODY_BYTES + 1, max: 3 * MAX_BODY_BYTES }))
  .map(([base, size]) => JSON.stringify({ ...base, messages: [{ role: 'user', content: 'x'.repeat(size) }] }));

const bodyArb: fc.Arbitrary<{ kind: string; body: string | Uint8Array }> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...BASES).map((base) => ({ kind: 'valid', body: JSON.stringify(base) })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...BASES), fc.array(mutation, { minLength: 1, maxLength: 4 }))
      .map(([base, mutations]) => ({ kind: 'mutated', body: safeStringify(mutate(base, mutations).request) })),
  },
  { weight: 4, arbitrary: rawText.map((body) => ({ kind: 'raw text', body })) },
  {
    weight: 2,
    arbitrary: fc
      .jsonValue({ maxDepth: 5 })
      .map((value) => ({ kind: 'random JSON', body: JSON.stringify(value) ?? 'null' })),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((body) => ({ kind: 'binary', body })) },
  { weight: 1, arbitrary: hugeText.map((body) => ({ kind: 'huge', body })) },
);

const PATHS = [
  '/v1/chat/completions',
  '/v1/chat/completions',
  '/v1/chat/completions',
  '/v1/chat/completions/',
  '/v1/models',
  '/v1/models/gpt-4o-latest',
  '/v1/models/%E0%A4%A',
  '/v1/models/..%2F..%2Fetc',
  '/v1/deployments',
  '/v1/deployments/support%3Aproduction%231',
  '/v1/deployments/%ZZ',
  '/v1/calls',
  '/v1/calls?limit=0',
  '/v1/calls?limit=abc',
  '/v1/calls?since=not-a-date&until=%00',
  '/v1/calls?cursor=%FF%FE',
  '/v1/workflows/t-fuzz',
  '/v1/workflows/%00',
  '/v1/costs/daily?days=999999',
  '/v1/costs/daily?days=-1',
  '/v1/agents',
  '/mcp',
  '/',
  '/?trace_id=%3Cscript%3E',
  '//v1/models',
  '/v1//chat/completions',
  '/V1/CHAT/COMPLETIONS',
  '/v1/chat/completions?stream=true',
];
/**
 * Request targets the server can take without crashing. A target that begins with "//" and does not parse as a
 * host (`//`, `//%00/`) crashes the process today: see the pinned bug at the end. They are left out here, and
 * counted. The target is the path as fetch sends it (after it resolved the dot segments).
 */
function survivable(path: string): boolean {
  try {
    const sent = new URL(`http://127.0.0.1:1${path}`);
    new URL(`${sent.pathname}${sent.search}`, 'http://127.0.0.1');
    return true;
  } catch {
    counts.crashingPathsLeftOut += 1;
    return false;
  }
}
const pathArb: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 12, arbitrary: fc.constant('/v1/chat/completions') },
    { weight: 3, arbitrary: fc.constantFrom(...PATHS) },
    {
      weight: 1,
      arbitrary: fc
        .array(
          fc.oneof(
            fc.constantFrom('v1', 'models', 'chat', 'completions', '..', '.', '%2F', '%00', '%', 'mcp', ''),
            fc.webSegment(),
          ),
          { maxLength: 5 },
        )
        .map((parts) => `/${parts.join('/')}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...PATHS), fc.webQueryParameters())
        .map(([path, query]) => `${path.split('?')[0]}?${query}`),
    },
  )
  .filter(survivable);

const requestArb: fc.Arbitrary<RawRequest & { kind: string }> = fc
  .record({
    method: fc.oneof(
      { weight: 8, arbitrary: fc.constant('POST') },
      { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') },
    ),
    path: pathArb,
    contentType: fc.constantFrom<string | null>(
      'application/json',
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      null,
    ),
    key: fc.oneof(
      { weight: 12, arbitrary: fc.constant('valid' as const) },
      { weight: 1, arbitrary: fc.constantFrom('none' as const, 'wrong' as const, 'odd' as const) },
    ),
    body: bodyArb,
  })
  .map(({ method, path, contentType, key, body }) => {
    const headers: Record<string, string> = {};
    if (contentType) headers['content-type'] = contentType;
    if (key === 'valid') Object.assign(headers, auth(fuzz.rig.key));
    if (key === 'wrong') Object.assign(headers, auth(`sy-${'A'.repeat(43)}`));
    if (key === 'odd') headers.authorization = 'Bearer  sy-\u00e9\u00e9 extra';
    const size = typeof body.body === 'string' ? body.body.length : body.body.byteLength;
    // What fast-check prints for a counterexample: short, since a body may be 200 kB.
    const summary =
      `${method} ${path} [${body.kind}, ${size} bytes] ${JSON.stringify(headers)} ` +
      `${String(body.body).slice(0, 300)}`;
    return { method, path, headers, body: body.body, kind: body.kind, [fc.toStringMethod]: () => summary };
  });

describe('raw HTTP fuzzing through switchyard serve', () => {
  it('edge cases, one by one', async () => {
    const valid = JSON.stringify(BASES[0]);
    const cases: Array<[string, RawRequest, number | ((status: number) => boolean)]> = [
      [
        'declared Content-Length over the limit',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(fuzz.rig.key) },
          body: 'x'.repeat(MAX_BODY_BYTES + 1),
        },
        413,
      ],
      [
        'a PUT over the limit',
        {
          method: 'PUT',
          path: '/v1/deployments/a',
          headers: { ...json, ...auth(fuzz.rig.key) },
          body: `"${'x'.repeat(MAX_BODY_BYTES)}"`,
        },
        413,
      ],
      [
        'the limit exactly, not JSON',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(fuzz.rig.key) },
          body: 'y'.repeat(MAX_BODY_BYTES),
        },
        400,
      ],
      [
        'nesting 30,000 deep in input',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(fuzz.rig.key) },
          body:
            '{"model":"gpt-4o-latest","messages":[{"role":"user","content":"{{d}}"}],' +
            `"input":{"d":${'['.repeat(30_000)}${']'.repeat(30_000)}}}`,
        },
        400,
      ],
      [
        'an extra message field nested 10,000 deep (forwarded as it is)',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(fuzz.rig.key) },
          body:
            '{"model":"gpt-4o-latest","messages":[{"role":"user","content":"hi",' +
            `"x":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}]}`,
        },
        (status) => status === 200 || status === 400,
      ],
      [
        'duplicate model key: the last one wins',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(fuzz.rig.key) },
          body: `{"model":"no-such-model",${valid.slice(1)}`,
        },
        200,
      ],
      [
        '__proto__ key',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(fuzz.rig.key) },
          body: `{"__proto__":{"polluted":"yes"},${valid.slice(1)}`,
        },
        400,
      ],
      [
        '__proto__ in metadata',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(fuzz.rig.key) },
          body: `{"metadata":{"__proto__":{"polluted":"yes"}},${valid.slice(1)}`,
        },
        (status) => status === 200 || status === 400,
      ],
      [
        'byte order mark',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(fuzz.rig.key) },
          body: `\uFEFF${valid}`,
        },
        (status) => status === 200 || status === 400,
      ],
      [
        'invalid UTF-8',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(fuzz.rig.key) },
          body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
        },
        400,
      ],
      [
        'text/plain with a valid body (the content type is not checked)',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { 'content-type': 'text/plain', ...auth(fuzz.rig.key) },
          body: valid,
        },
        200,
      ],
      ['no body', { method: 'POST', path: '/v1/chat/completions', headers: { ...json, ...auth(fuzz.rig.key) } }, 400],
      [
        'a non-ASCII key',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, authorization: 'Bearer sy-\u00ff' },
          body: valid,
        },
        401,
      ],
      [
        'an over-long key',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(`sy-${'k'.repeat(10_000)}`) },
          body: valid,
        },
        401,
      ],
      [
        'a bad percent-encoding in a path parameter',
        { method: 'GET', path: '/v1/deployments/%E0%A4%A', headers: auth(fuzz.rig.key) },
        400,
      ],
      [
        'a page request from a foreign Origin',
        { method: 'GET', path: '/', headers: { origin: 'http://evil.example' } },
        403,
      ],
      [
        'PUT of a deployment whose schema is 200 levels deep',
        {
          method: 'PUT',
          path: '/v1/deployments/deep%3Aproduction%231',
          headers: { ...json, ...auth(fuzz.rig.key) },
          body: JSON.stringify(
            makeDeployment(
              { agent_id: 'deep' },
              {
                output_schema: {
                  json_schema: {
                    type: 'object',
                    properties: {
                      a: JSON.parse(`${'{"type":"array","items":'.repeat(200)}{"type":"string"}${'}'.repeat(200)}`),
                    },
                  },
                },
              },
            ),
          ),
        },
        400,
      ],
    ];
    for (const [label, request, expected] of cases) {
      counts.edgeCases += 1;
      const status = await fuzz.check(request, label);
      if (typeof expected === 'number') expect(status, label).toBe(expected);
      else expect(expected(status), `${label}: ${status}`).toBe(true);
    }
  });

  it(`${RUNS} random requests (seed ${SEED}): a success or an OpenAI 4xx, never a 5xx or a hang`, async () => {
    await fc.assert(
      fc.asyncProperty(requestArb, async (request) => {
        await fuzz.check(request, request.kind);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  }, 60_000);

  it('still serves afterwards, with nothing polluted and no unexpected error logged', async () => {
    await fuzz.afterwards();
  });
});

describe('bugs the fuzzing found (pinned, not fixed here)', () => {
  // Bug (src/server/node-adapter.ts, toWebRequest): a request target that begins with "//" is parsed as a
  // scheme-relative URL, so `new URL('//', 'http://<host>')` throws (as for `//%00/`, `//a b/`), and so does the
  // fallback with the server's origin. The throw leaves the 'request' listener synchronously: an uncaught exception
  // that exits the process. One unauthenticated `curl http://127.0.0.1:8787//` stops `switchyard serve` (checked
  // by hand against startServer). (Targets such as `//v1/models` parse, with "v1" taken as the host: routed as
  // `/models`, a 404, harmless.)
  // Fix: build the URL as `new URL(origin + req.url)` (the target is always a path, or `*`), or catch and answer 400.
  // Pinned on the listener itself, so that the test run survives it.
  it('a request target such as // is answered, not thrown out of the request listener', () => {
    const listener = createNodeListener(
      { handle: async () => ({ status: 400, headers: {}, body: null }) },
      { origin: 'http://127.0.0.1:1' },
    );
    const req = Object.assign(new EventEmitter(), {
      url: '//',
      method: 'GET',
      headers: { host: '127.0.0.1:1' },
      rawHeaders: ['Host', '127.0.0.1:1'],
      resume() {},
    });
    const res = Object.assign(new EventEmitter(), {
      headersSent: false,
      writableFinished: false,
      destroyed: false,
      writeHead() {},
      flushHeaders() {},
      write: () => true,
      end() {},
      destroy() {},
    });
    expect(() => listener(req as never, res as never)).not.toThrow();
  });
});

import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeListener } from '../../src/server/index.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { bounded, guardUnhandledRejections } from './harness.ts';
import { isOpenAIErrorBody, type ServeRig, startServeRig } from './serve-harness.ts';

/**
 * Raw HTTP fuzzing of `switchyard serve` (the simulator behind it, so nothing is slow but the server itself):
 * random and mutated JSON bodies, non-JSON and binary bodies, wrong content types, bodies over the size limit,
 * deep nesting, odd Unicode, duplicate keys, `__proto__` keys, random paths, query strings, methods and keys.
 * Every request must be answered, within a bound, with a success or a 4xx whose body is an OpenAI error body
 * (JSON-RPC errors on /mcp): never a 5xx, never a hang, never a polluted Object.prototype, never an
 * "unexpected error" in the log. Afterwards the server still answers. Fixed seed; counts are printed.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_500);
/** Small, so that bodies over it are cheap to send; the default is 4 MB. */
const MAX_BODY_BYTES = 64 * 1024;
const REQUEST_BOUND_MS = 10_000;

guardUnhandledRejections();

let rig: ServeRig;
beforeAll(async () => {
  rig = await startServeRig(undefined, { mock: true, gateway: { env: {} }, maxBodyBytes: MAX_BODY_BYTES });
});
afterAll(async () => {
  await rig?.stop();
  console.log(`serve fuzz: ${JSON.stringify(counts)}`);
});

const counts = {
  cases: 0,
  edgeCases: 0,
  byStatus: {} as Record<string, number>,
  streams: 0,
  slowestMs: 0,
  crashingPathsLeftOut: 0,
  unsatisfiableSchema502: 0,
};

interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** Sends one request and checks the contract; returns the status. */
async function check(request: RawRequest, label: string): Promise<number> {
  const started = performance.now();
  const hasBody = request.body !== undefined && request.method !== 'GET' && request.method !== 'HEAD';
  const init: RequestInit = {
    method: request.method,
    headers: request.headers,
    signal: AbortSignal.timeout(REQUEST_BOUND_MS),
  };
  if (hasBody) init.body = request.body as NonNullable<RequestInit['body']>;
  const response = await bounded(fetch(`${rig.url}${request.path}`, init), REQUEST_BOUND_MS + 1_000, label);
  const text = await bounded(response.text(), REQUEST_BOUND_MS, `${label} (body)`);
  counts.slowestMs = Math.max(counts.slowestMs, Math.round(performance.now() - started));
  const { status } = response;
  counts.byStatus[status] = (counts.byStatus[status] ?? 0) + 1;
  const context = `${label}: ${request.method} ${request.path.slice(0, 120)} → ${status} ${text.slice(0, 300)}`;
  if (status === 502 && JSON.parse(text)?.error?.code === 'structured_output_invalid') {
    // The one 5xx allowed, as in fuzz.test.ts: a schema no value satisfies (such as a required property that
    // additionalProperties: false forbids). The simulator's answer cannot match it, and 502 is the documented answer.
    counts.unsatisfiableSchema502 += 1;
    expect(isOpenAIErrorBody(JSON.parse(text)), context).toBe(true);
    return status;
  }
  expect(status, context).toBeLessThan(500);
  expect(status, context).toBeGreaterThanOrEqual(200);
  if (request.method === 'HEAD') return status;
  const pathname = new URL(request.path, 'http://x').pathname;
  if (status >= 400) {
    const body = JSON.parse(text) as unknown;
    if (/^\/mcp\/?$/.test(pathname) && request.method === 'POST' && !isOpenAIErrorBody(body)) {
      // The MCP transport answers in JSON-RPC, as MCP clients expect.
      expect(body, context).toMatchObject({
        jsonrpc: '2.0',
        error: { code: expect.any(Number), message: expect.any(String) },
      });
    } else {
      expect(isOpenAIErrorBody(body), context).toBe(true);
    }
  } else if (pathname === '/v1/chat/completions') {
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
      counts.streams += 1;
      const events = text
        .split('\n\n')
        .filter(Boolean)
        .map((event) => event.replace(/^data: /, ''));
      const last = events.at(-1)!;
      // Either a complete stream, or one that ends in an OpenAI error event: nothing else.
      if (last !== '[DONE]') expect(isOpenAIErrorBody(JSON.parse(last)), context).toBe(true);
    } else {
      expect(JSON.parse(text).object, context).toBe('chat.completion');
    }
    expect(response.headers.get('x-switchyard-call-id'), context).toBeTruthy();
  }
  return status;
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const json = { 'content-type': 'application/json' };

// ---- what requests are made of ----

const BASES: Array<Record<string, unknown>> = [
  { model: 'gpt-4o-latest', messages: [{ role: 'user', content: 'Hello' }] },
  {
    model: 'claude-haiku-4-5',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi {{name}}' },
    ],
    input: { name: 'Ada' },
    temperature: 0.3,
  },
  {
    model: 'gemini-2.5-flash',
    messages: [{ role: 'user', content: 'Stream' }],
    stream: true,
    stream_options: { include_usage: true },
  },
  {
    model: 'gpt-4o-latest',
    messages: [{ role: 'user', content: 'Weather?' }],
    tools: [
      {
        type: 'function',
        function: {
          name: 'lookup',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ],
    tool_choice: 'required',
  },
  {
    model: 'gpt-4o-latest',
    messages: [{ role: 'user', content: 'Rate' }],
    response_format: {
      type: 'json_schema',
      json_schema: {
        name: 'rating',
        schema: {
          type: 'object',
          properties: { score: { type: 'integer', minimum: 1, maximum: 5 } },
          required: ['score'],
          additionalProperties: false,
        },
      },
    },
  },
  {
    model: 'analyst/gpt-4o-latest',
    messages: [{ role: 'user', content: 'Hi' }],
    metadata: { trace_id: 't-fuzz', workflow_name: 'fuzz' },
    fallbacks: ['claude-haiku-4-5'],
  },
];

const WEIRD = [
  '\u0000',
  '\uD800',
  'a\uDFFFb',
  '\u202Eevil',
  '\u200B\uFEFF',
  'e\u0301\u0301',
  '𝕳𝖊𝖑𝖑𝖔',
  '👩‍👩‍👧',
  '\r\n\r\ndata: [DONE]\n\n',
  '{{constructor}}',
  '../../etc/passwd',
  '%00',
  'switchyard/deployment/x',
];
const PROTO = ['__proto__', 'constructor', 'prototype'];

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom<unknown>(null, -1, 0, 1e308, 2 ** 53 + 1, 3.5, true, '', [], {}),
  fc.constantFrom(...WEIRD),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
);

/** Mutations of a valid body, applied to its parsed value: replace, delete or add at a random place. */
type Mutation = { at: number; op: 'replace' | 'delete' | 'add'; key: string; value: unknown };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('replace', 'replace', 'delete', 'add'),
  key: fc.oneof(
    fc.constantFrom(...PROTO, 'unknown', 'role', 'content', 'model', 'schema'),
    fc.string({ maxLength: 6 }),
  ),
  value: leaf,
});

function mutate(base: Record<string, unknown>, mutations: Mutation[]): unknown {
  const root = structuredClone(base);
  for (const { at, op, key, value } of mutations) {
    const places: Array<[Record<string, unknown>, string]> = [];
    const visit = (node: unknown) => {
      if (typeof node !== 'object' || node === null) return;
      for (const child of Object.keys(node)) {
        places.push([node as Record<string, unknown>, child]);
        visit((node as Record<string, unknown>)[child]);
      }
    };
    visit(root);
    if (places.length === 0) {
      root[key] = value;
      continue;
    }
    const [parent, child] = places[at % places.length]!;
    if (op === 'replace') parent[child] = value;
    else if (op === 'delete') delete parent[child];
    else Object.defineProperty(parent, key, { value, enumerable: true, configurable: true, writable: true });
  }
  return root;
}

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
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.json({ maxDepth: 4 }),
);

/** Over MAX_BODY_BYTES: must be a 413, however the rest looks. */
const hugeText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...BASES), fc.integer({ min: MAX_BODY_BYTES + 1, max: 3 * MAX_BODY_BYTES }))
  .map(([base, size]) => JSON.stringify({ ...base, messages: [{ role: 'user', content: 'x'.repeat(size) }] }));

const bodyArb: fc.Arbitrary<{ kind: string; body: string | Uint8Array }> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...BASES).map((base) => ({ kind: 'valid', body: JSON.stringify(base) })) },
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.constantFrom(...BASES), fc.array(mutation, { minLength: 1, maxLength: 4 }))
      .map(([base, mutations]) => ({ kind: 'mutated', body: JSON.stringify(mutate(base, mutations)) ?? '' })),
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
    if (key === 'valid') Object.assign(headers, auth(rig.key));
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
          headers: { ...json, ...auth(rig.key) },
          body: 'x'.repeat(MAX_BODY_BYTES + 1),
        },
        413,
      ],
      [
        'a PUT over the limit',
        {
          method: 'PUT',
          path: '/v1/deployments/a',
          headers: { ...json, ...auth(rig.key) },
          body: `"${'x'.repeat(MAX_BODY_BYTES)}"`,
        },
        413,
      ],
      [
        'the limit exactly, not JSON',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(rig.key) },
          body: 'y'.repeat(MAX_BODY_BYTES),
        },
        400,
      ],
      [
        'nesting 30,000 deep in input',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(rig.key) },
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
          headers: { ...json, ...auth(rig.key) },
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
          headers: { ...json, ...auth(rig.key) },
          body: `{"model":"no-such-model",${valid.slice(1)}`,
        },
        200,
      ],
      [
        '__proto__ key',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(rig.key) },
          body: `{"__proto__":{"polluted":"yes"},${valid.slice(1)}`,
        },
        400,
      ],
      [
        '__proto__ in metadata',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(rig.key) },
          body: `{"metadata":{"__proto__":{"polluted":"yes"}},${valid.slice(1)}`,
        },
        (status) => status === 200 || status === 400,
      ],
      [
        'byte order mark',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(rig.key) },
          body: `\uFEFF${valid}`,
        },
        (status) => status === 200 || status === 400,
      ],
      [
        'invalid UTF-8',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { ...json, ...auth(rig.key) },
          body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
        },
        400,
      ],
      [
        'text/plain with a valid body (the content type is not checked)',
        {
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { 'content-type': 'text/plain', ...auth(rig.key) },
          body: valid,
        },
        200,
      ],
      ['no body', { method: 'POST', path: '/v1/chat/completions', headers: { ...json, ...auth(rig.key) } }, 400],
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
        { method: 'GET', path: '/v1/deployments/%E0%A4%A', headers: auth(rig.key) },
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
          headers: { ...json, ...auth(rig.key) },
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
      const status = await check(request, label);
      if (typeof expected === 'number') expect(status, label).toBe(expected);
      else expect(expected(status), `${label}: ${status}`).toBe(true);
    }
  });

  it(`${RUNS} random requests (seed ${SEED}): a success or an OpenAI 4xx, never a 5xx or a hang`, async () => {
    await fc.assert(
      fc.asyncProperty(requestArb, async (request) => {
        counts.cases += 1;
        await check(request, request.kind);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  }, 60_000);

  it('still serves afterwards, with nothing polluted and no unexpected error logged', async () => {
    expect((await bounded(fetch(`${rig.url}/v1/models`))).status).toBe(200);
    const answer = await bounded(
      rig
        .openai()
        .chat.completions.create({ model: 'gpt-4o-latest', messages: [{ role: 'user', content: 'still there?' }] }),
    );
    expect(answer.choices[0]!.message.content).toContain('still there?');
    for (const key of ['polluted', 'role', 'content']) expect(key in Object.prototype, key).toBe(false);
    // gpt-4o is deprecated: serve says so once, a warning expected here.
    const unexpected = rig.logs.filter((line) => line.level !== 'info' && line.msg !== 'model deprecated');
    expect(unexpected).toEqual([]);
    const requests = rig.logs.filter((line) => line.msg === 'request');
    expect(requests.length).toBeGreaterThanOrEqual(counts.cases + counts.edgeCases);
    expect(requests.filter((line) => (line.status as number) >= 500).length).toBe(counts.unsatisfiableSchema502);
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

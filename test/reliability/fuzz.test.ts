import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySink } from '../../src/entries/stores.ts';
import {
  type CompletionStream,
  createGateway,
  type Gateway,
  StructuredOutputError,
  SwitchyardError,
} from '../../src/index.ts';
import { anyCodePoint } from '../helpers/code-points.ts';
import { bounded, guardUnhandledRejections } from './harness.ts';
import { BASES, describeError, mutate, mutation, nest, safeStringify } from './request-fuzz.ts';
import { type FuzzRig, startFuzzRig } from './serve-fuzz-rig.ts';

/**
 * Bad input, fuzzed, one table on both surfaces: valid chat-completion requests (request-fuzz.ts) mutated at random
 * places, and fully random values where a request should be, sent through the simulator (`mock: true`, records on)
 * in process and through `switchyard serve --mock` as JSON. Every call must answer, or fail with a 4xx that has a
 * message (in process a SwitchyardError, over HTTP an OpenAI error body): never a TypeError, never a 5xx, never a
 * hang, never a polluted Object.prototype. Fixed seed, so a failure reproduces; the number of cases is printed.
 *
 * One outcome is allowed besides that, counted and printed: a 502 structured_output_invalid (StructuredOutputError),
 * when the request asks for a schema the simulator's example does not satisfy (an unsatisfiable schema such as
 * minimum > maximum): that is the documented answer when no valid JSON came. Bugs the fuzzing found are fixed and
 * pinned at the end; raw HTTP (bytes, paths, headers) is fuzzed in serve-fuzz.test.ts.
 */

/** Fixed by default; FUZZ_SEED / FUZZ_RUNS explore further (a failure prints the seed and path to replay it). */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_500);

guardUnhandledRejections();

/** What became of one request: answered, or the status of its refusal (`structured` for the allowed 502). */
type Outcome = 'answered' | 'structured' | number;

interface Surface {
  name: string;
  /** Mutated requests sent: every one in process; over HTTP, where each is a request of its own, half as many. */
  runs: number;
  start(): Promise<void>;
  /** Sends one request and checks the contract a refusal must meet. */
  send(request: unknown, where: string): Promise<Outcome>;
  stop(): Promise<void>;
}

/** In process: the call (a stream read to its end), bounded. */
function inProcess(): Surface {
  let gateway: Gateway;
  return {
    name: 'in process (createGateway({ mock: true }))',
    runs: RUNS,
    start: async () => {
      gateway = createGateway({
        mock: true,
        records: { sinks: [new MemorySink({ capacity: 100 })], flushIntervalMs: 50 },
      });
    },
    send: async (request, where) => {
      let error: unknown;
      try {
        await bounded((async () => consume(await gateway.createCompletion(request as never)))(), 5_000, where);
        return 'answered';
      } catch (caught) {
        if (caught instanceof Error && /did not settle within/.test(caught.message)) throw caught;
        error = caught;
      }
      const asked = request as { response_format?: unknown } | null;
      if (error instanceof StructuredOutputError && asked?.response_format !== undefined) return 'structured';
      const detail = `${where}: ${describeError(error)}`;
      expect(error, detail).toBeInstanceOf(SwitchyardError);
      const failure = error as SwitchyardError;
      expect(failure.status, detail).toBeGreaterThanOrEqual(400);
      expect(failure.status, detail).toBeLessThan(500);
      expect(typeof failure.message === 'string' && failure.message.trim().length > 0, detail).toBe(true);
      expect(() => JSON.stringify(failure), detail).not.toThrow();
      return failure.status;
    },
    stop: async () => gateway.close(),
  };
}

/** Through serve: the request as JSON (as `JSON.stringify` writes it), the contract of serve-fuzz-rig.ts. */
function throughServe(): Surface {
  let fuzz: FuzzRig;
  return {
    name: 'through switchyard serve --mock',
    runs: Math.ceil(RUNS / 2),
    start: async () => {
      fuzz = await startFuzzRig();
    },
    send: async (request, where) => {
      const status = await fuzz.check(fuzz.chat(safeStringify(request)), where);
      if (status === 502) return 'structured';
      return status < 400 ? 'answered' : status;
    },
    stop: async () => {
      console.log(`fuzz through serve: ${JSON.stringify(fuzz.counts)}`);
      await fuzz.afterwards();
    },
  };
}

async function consume(result: unknown): Promise<void> {
  if (result && typeof result === 'object' && Symbol.asyncIterator in result)
    for await (const chunk of result as CompletionStream) void chunk;
}

const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();

describe.each([inProcess(), throughServe()])('fuzzed requests $name', (surface) => {
  const counts = {
    cases: 0,
    answered: 0,
    rejected4xx: 0,
    structuredOutput502: 0,
    byStatus: {} as Record<number, number>,
  };
  const tally = (outcome: Outcome) => {
    counts.cases += 1;
    if (outcome === 'answered') counts.answered += 1;
    else if (outcome === 'structured') counts.structuredOutput502 += 1;
    else {
      counts.rejected4xx += 1;
      counts.byStatus[outcome] = (counts.byStatus[outcome] ?? 0) + 1;
    }
  };
  beforeAll(() => surface.start());
  afterAll(async () => {
    console.log(`fuzz ${surface.name}: ${JSON.stringify(counts)}`);
    await surface.stop();
  });

  it(`each answers or is a 4xx with a message (${surface.runs} mutated requests, seed ${SEED})`, async () => {
    const property = fc.asyncProperty(
      fc.constantFrom(...BASES),
      fc.array(mutation, { minLength: 1, maxLength: 4 }),
      async (base, mutations) => {
        const { request, log } = mutate(base, mutations);
        const where = `request after [${log.join(', ')}]`;
        const started = performance.now();
        tally(await surface.send(request, where));
        // Promise.race catches a call that never settles; the clock catches synchronous work that blocks.
        expect(performance.now() - started, `${where} blocked the event loop`).toBeLessThan(5_000);
      },
    );
    const before = counts.cases;
    await fc.assert(property, { seed: SEED, numRuns: surface.runs, endOnFailure: true });
    // Nothing a request carried reached Object.prototype.
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(counts.cases - before).toBe(surface.runs);
    expect(counts.answered).toBeGreaterThan(surface.runs / 20);
    expect(counts.rejected4xx).toBeGreaterThan(surface.runs / 4);
  }, 60_000);

  it('fully random values where a request should be: 4xx or an answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.anything({ maxDepth: 3, withNullPrototype: true, stringUnit: anyCodePoint }),
        async (request) => {
          const outcome = await surface.send(request, `the random value ${safeStringify(request).slice(0, 200)}`);
          expect(outcome).not.toBe('structured');
          tally(outcome);
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
  });
});

function deepSchema(depth: number): Record<string, unknown> {
  let node: Record<string, unknown> = { type: 'string' };
  for (let level = 0; level < depth; level++) node = { type: 'object', properties: { a: node }, required: ['a'] };
  return node;
}

describe('deep and huge response_format schemas: answered or refused, within a bound', () => {
  function wideSchema(count: number): Record<string, unknown> {
    const properties: Record<string, unknown> = {};
    for (let index = 0; index < count; index++)
      properties[`p${index}`] = { type: index % 3 === 0 ? 'integer' : 'string' };
    return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
  }
  // Generous: a hang guard on two shared cores. Unloaded, depth 500 takes ~0.7 s and 10 000 properties ~2.5 s, nearly
  // all
  // of it Ajv compiling the validator (once per schema text; the streamed variants below reuse it).
  const SCHEMA_BOUND_MS = 15_000;
  const cases = [
    { name: 'depth 500', schema: deepSchema(500) },
    { name: '10 000 properties', schema: wideSchema(10_000) },
  ];
  for (const { name, schema: big } of cases) {
    for (const stream of [false, true]) {
      it(
        `${name}${stream ? ', streamed' : ''}`,
        async () => {
          const gateway = createGateway({ mock: true, records: false });
          const started = performance.now();
          // A fresh copy each time: the validator cache is keyed by the schema object (then by its text).
          const request = {
            model: 'gpt-4o-latest',
            messages: [{ role: 'user' as const, content: 'fill it' }],
            response_format: {
              type: 'json_schema' as const,
              json_schema: { name: 'big', schema: structuredClone(big) },
            },
          };
          let outcome: unknown;
          try {
            const result = await bounded(
              gateway.createCompletion(stream ? { ...request, stream: true } : request),
              SCHEMA_BOUND_MS,
              name,
            );
            await bounded(consume(result), SCHEMA_BOUND_MS, name);
            outcome = 'answered';
          } catch (error) {
            if (error instanceof Error && /did not settle/.test(error.message)) throw error;
            expect(error).toBeInstanceOf(SwitchyardError);
            expect((error as SwitchyardError).status).toBe(400);
            outcome = (error as SwitchyardError).code;
          }
          // Promise.race cannot interrupt synchronous work (schema compilation is), so the bound is also checked on
          // the clock afterwards: a generous hang guard, not a speed assertion.
          const elapsed = performance.now() - started;
          console.log(`schema ${name}${stream ? ' (stream)' : ''}: ${String(outcome)} in ${Math.round(elapsed)} ms`);
          expect(elapsed).toBeLessThan(SCHEMA_BOUND_MS);
        },
        2 * SCHEMA_BOUND_MS,
      );
    }
  }
});

describe('regressions found by fuzzing', () => {
  const gateway = createGateway({ mock: true });

  // Regression (fixed; was a bug in record(): src/records/call-recorder.ts, before that src/gateway.ts):
  // `(call.messages ?? request?.messages)?.slice()`
  // runs in createCompletion's catch block. When `messages` is a number, a boolean or an object, `.slice` is not a
  // function: the TypeError replaces the InvalidRequestError ("messages" must be an array) that validation threw.
  // (In process, an array carrying an own `constructor` key fails the same way, even on a successful call.)
  it.each([42, true, { role: 'user', content: 'hi' }])('messages: %j → 400, not a TypeError', async (messages) => {
    const error = await gateway
      .createCompletion({ model: 'gpt-4o-latest', messages } as never)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SwitchyardError);
    expect((error as SwitchyardError).status).toBe(400);
  });

  // Regression (fixed; was a bug in src/templates.ts, renderTemplate): variables are looked up with `value[key]`, which
  // reads inherited
  // properties: `{{constructor}}` renders "undefined" (a function has no JSON), `{{__proto__}}` renders "{}", and
  // `{{toString}}` renders "undefined", where a missing variable must be a 400 missing_variable.
  it.each(['{{constructor}}', '{{__proto__}}', '{{toString}}', '{{doc.hasOwnProperty}}'])(
    'template %s with an input that lacks it → 400 missing_variable',
    async (content) => {
      const error = await gateway
        .createCompletion({ model: 'gpt-4o-latest', messages: [{ role: 'user', content }], input: { doc: {} } })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ status: 400, code: 'missing_variable' });
    },
  );

  // Regression (fixed; was a bug in several places that JSON.stringify or recurse over request values: templates.ts,
  // providers/mock.ts
  // usageOf, structured-output compileSchema): a value nested ~50 000 levels deep (a 300 kB JSON body) overflows
  // the stack, and the RangeError escapes instead of a 400. Through `switchyard serve` this is a 500 on demand.
  it.each([
    ['input', (deep: unknown) => ({ messages: [{ role: 'user', content: '{{x}}' }], input: { x: deep } })],
    // A field Switchyard does not know is dropped (with a warning) before anything reads it; a known one passes on.
    [
      'a message field passed on as it is',
      (deep: unknown) => ({
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello', audio: deep },
          { role: 'user', content: 'again' },
        ],
      }),
    ],
    [
      'forced tool parameters (a schema 25 000 objects deep)',
      () => ({
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 't', parameters: deepSchema(25_000) } }],
        tool_choice: 'required',
      }),
    ],
  ] as const)('a value nested 50 000 deep in %s → 400, not a RangeError', async (_where, build) => {
    const error = await gateway
      .createCompletion({ model: 'gpt-4o-latest', ...build(nest(50_000, false, 'x')) } as never)
      .then(
        () => 'answered',
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(SwitchyardError);
  });

  // Regression (fixed; was a bug in in-process only; JSON cannot carry it): a BigInt in `input` reaches JSON.stringify
  // in renderTemplate and
  // escapes as "TypeError: Do not know how to serialize a BigInt".
  it('a BigInt template value → 400, not a TypeError', async () => {
    const error = await gateway
      .createCompletion({ model: 'gpt-4o-latest', messages: [{ role: 'user', content: '{{n}}' }], input: { n: 10n } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SwitchyardError);
  });

  // Regression (found when the fuzzing became one table for both surfaces; in process only, JSON cannot carry it): an
  // array with an own "constructor" key that is not a constructor (`stop`, a message's content) makes every
  // Array.prototype method that builds a new array (filter, map, slice) throw "object.constructor[Symbol.species] is
  // not a constructor", in the Anthropic converter among others: a TypeError where a 400 belongs.
  const withConstructor = <T>(array: T[]): T[] =>
    Object.defineProperty(array, 'constructor', { value: '', enumerable: true, configurable: true, writable: true });
  it.each([
    ['stop', { model: 'claude-haiku-4-5', stop: withConstructor(['\n\n']) }],
    [
      'a message content',
      {
        model: 'claude-haiku-4-5',
        messages: [{ role: 'user', content: withConstructor([{ type: 'text', text: 'hi' }]) }],
      },
    ],
    ['messages', { model: 'gpt-4o-latest', messages: withConstructor([{ role: 'user', content: 'hi' }]) }],
  ] as const)('an array with an own "constructor" key in %s → 400, not a TypeError', async (_where, fields) => {
    const error = await gateway
      .createCompletion({ messages: [{ role: 'user', content: 'hi' }], ...fields } as never)
      .then(
        () => 'answered',
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(SwitchyardError);
    expect(error).toMatchObject({ status: 400 });
  });
});

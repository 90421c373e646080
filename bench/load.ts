/**
 * The measured process: every client under test, in one process, against the mock provider started by run.ts.
 * Prints one JSON object (see `LoadResult`) on stdout. Run it through bench/run.ts; alone:
 *
 *   node --expose-gc bench/load.ts --port 12345 [--rounds 5] [--seq 200] [--calls 1000] [--concurrency 32] [--only
 * ours,sdk]
 *
 * Method: warm-up, then `rounds` rounds; each round runs every scenario (in an order rotated every round, so drift
 * is spread evenly) once sequentially and once at `concurrency` in flight. A full GC runs before each batch so one
 * scenario's garbage is not billed to the next. CPU is `process.cpuUsage()` of this process (the mock runs in its
 * own), divided by the calls of the batch.
 */
import { parseArgs } from 'node:util';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { Agent, request } from 'undici';
import { createGateway } from '../src/index.ts';
import { createPooledFetch } from '../src/internal/http-transport.ts';
import { completion, streamHead, streamTail } from './payloads.ts';

export interface Scenario {
  name: string;
  label: string;
  stream: boolean;
  /** Calls per batch relative to the others (in-process scenarios are fast and get more). */
  weight?: number;
  /** One call; streams resolve to the `performance.now()` at which the first chunk with text arrived. */
  // biome-ignore lint/suspicious/noConfusingVoidType: the non-stream scenarios are `async () => void (await …)`.
  run(): Promise<number | void>;
}

export interface BatchStats {
  medianMs: number;
  p99Ms: number;
  callsPerSecond: number;
  cpuUsPerCall: number;
  ttfcMedianMs: number | null;
}

export interface LoadResult {
  settings: { rounds: number; seq: number; calls: number; concurrency: number; node: string; cpus: number };
  /** scenario → mode ('seq' | 'c<N>') → one entry per round. */
  rounds: Record<string, Record<string, BatchStats[]>>;
  /** Latencies of every round pooled: scenario → mode → stats. */
  pooled: Record<
    string,
    Record<string, { medianMs: number; p99Ms: number; ttfcMedianMs: number | null; ttfcP99Ms: number | null }>
  >;
}

const { values: args } = parseArgs({
  options: {
    port: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    seq: { type: 'string', default: '200' },
    calls: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '32' },
    only: { type: 'string' },
    /** Profile mode: run one scenario for this many calls at the given concurrency, no rounds, no output. */
    profile: { type: 'string' },
    /**
     * Allocation mode: bytes allocated per call, each scenario run sequentially for this many calls between two reads
     * of the heap's size with no collection in between (start the process with a large --max-semi-space-size).
     */
    alloc: { type: 'string' },
  },
});
if (!args.port) throw new Error('--port is required (bench/run.ts starts the mock and passes it)');

const origin = `http://127.0.0.1:${args.port}`;
const baseURL = `${origin}/v1`;
const apiKey = 'sk-bench-0000000000000000';
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const systemMessage = {
  role: 'system' as const,
  content: 'You are a terse geography assistant. Answer with facts only.',
};
const userMessage = {
  role: 'user' as const,
  content: 'Which city is the capital of France, in which country is it, and how many people live there?',
};
const messages = [systemMessage, userMessage];
const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, country: { type: 'string' }, population: { type: 'integer', minimum: 0 } },
  required: ['city', 'country', 'population'],
  additionalProperties: false,
};
/** One schema object reused by every call, as applications do (validators are cached per schema object). */
const responseFormat = { type: 'json_schema' as const, json_schema: { name: 'city', schema, strict: true } };

// The floor: undici's own request API on a pooled keep-alive agent, body serialised and answer parsed.
const floorAgent = new Agent({ connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });
const floorHeaders = { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` };
const chatURL = `${baseURL}/chat/completions`;

const sdk = new OpenAI({ apiKey, baseURL });
const sdkPooled = new OpenAI({ apiKey, baseURL, fetch: createPooledFetch() });
const ours = createGateway({ env: {}, providers: { openai: { apiKey, baseURL } } });
// Before issue 27: the same gateway with the provider reached through its SDK (on the gateway's pooled fetch).
const oursSdk = createGateway({ env: {}, transport: 'sdk', providers: { openai: { apiKey, baseURL } } });

// In-process: a fetch that answers at once with the mock's bytes. What remains is client-side work only (SDK,
// Response parsing, and for createCompletion routing, translation and recording), without sockets or the kernel.
// A JSON answer states its length, as an uncompressed one does (see docs/performance.md on a caller's own fetch).
const stubJSONHeaders = {
  'content-type': 'application/json',
  'x-request-id': 'req_bench',
  'content-length': String(completion.byteLength),
};
const stubSSEHeaders = { 'content-type': 'text/event-stream', 'x-request-id': 'req_bench' };
const stubStream = Buffer.concat([streamHead, streamTail]);
const stubFetch = (async (_input: string | URL | Request, init?: RequestInit) =>
  typeof init?.body === 'string' && init.body.includes('"stream":true')
    ? new Response(stubStream, { headers: stubSSEHeaders })
    : new Response(completion, { headers: stubJSONHeaders })) as typeof fetch;
const sdkStub = new OpenAI({ apiKey, baseURL, fetch: stubFetch });
const oursStub = createGateway({ env: {}, providers: { openai: { apiKey, baseURL, fetch: stubFetch } } });
const oursStubSdk = createGateway({
  env: {},
  transport: 'sdk',
  providers: { openai: { apiKey, baseURL, fetch: stubFetch } },
});

const aiProvider = createOpenAICompatible({ name: 'bench', baseURL, apiKey });
const aiModel = aiProvider.chatModel('gpt-4o-mini');
/** The AI SDK's idiom (and no warning per call): the system prompt as `system`, not as a message. */
const aiPrompt = { system: systemMessage.content, messages: [userMessage] };

const hasText = (chunk: { choices: Array<{ delta?: { content?: string | null } }> }) =>
  Boolean(chunk.choices[0]?.delta?.content);

async function consume<T>(stream: AsyncIterable<T>, isText: (item: T) => boolean): Promise<number> {
  let first = 0;
  for await (const item of stream) if (first === 0 && isText(item)) first = performance.now();
  return first;
}

export const scenarios: Scenario[] = [
  {
    name: 'floor',
    label: 'undici.request (floor)',
    stream: false,
    run: async () => {
      const { body } = await request(chatURL, {
        method: 'POST',
        headers: floorHeaders,
        body: JSON.stringify({ model: 'gpt-4o-mini', messages }),
        dispatcher: floorAgent,
      });
      await body.json();
    },
  },
  {
    name: 'sdk',
    label: 'openai SDK, defaults',
    stream: false,
    run: async () => void (await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages })),
  },
  {
    name: 'sdk-pooled',
    label: 'openai SDK + pooled fetch',
    stream: false,
    run: async () => void (await sdkPooled.chat.completions.create({ model: 'gpt-4o-mini', messages })),
  },
  {
    name: 'ours',
    label: 'createCompletion',
    stream: false,
    run: async () => void (await ours.createCompletion({ model: 'gpt-4o-mini-latest', messages })),
  },
  {
    name: 'ours-sdk',
    label: 'createCompletion, SDK transport (before)',
    stream: false,
    run: async () => void (await oursSdk.createCompletion({ model: 'gpt-4o-mini-latest', messages })),
  },
  {
    name: 'ours-schema',
    label: 'createCompletion json_schema',
    stream: false,
    run: async () =>
      void (await ours.createCompletion({ model: 'gpt-4o-mini-latest', messages, response_format: responseFormat })),
  },
  {
    name: 'ours-schema-sdk',
    label: 'createCompletion json_schema, SDK transport (before)',
    stream: false,
    run: async () =>
      void (await oursSdk.createCompletion({
        model: 'gpt-4o-mini-latest',
        messages,
        response_format: responseFormat,
      })),
  },
  {
    name: 'ai',
    label: 'AI SDK generateText',
    stream: false,
    run: async () => void (await generateText({ model: aiModel, ...aiPrompt })),
  },
  {
    name: 'floor-stream',
    label: 'undici.request SSE (floor)',
    stream: true,
    run: async () => {
      const { body } = await request(chatURL, {
        method: 'POST',
        headers: floorHeaders,
        body: JSON.stringify({ model: 'gpt-4o-mini', messages, stream: true }),
        dispatcher: floorAgent,
      });
      return consume(body, () => true);
    },
  },
  {
    name: 'sdk-stream',
    label: 'openai SDK stream',
    stream: true,
    run: async () =>
      consume(await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true }), hasText),
  },
  {
    name: 'ours-stream',
    label: 'createCompletion stream',
    stream: true,
    run: async () =>
      consume(await ours.createCompletion({ model: 'gpt-4o-mini-latest', messages, stream: true }), hasText),
  },
  {
    name: 'ours-stream-sdk',
    label: 'createCompletion stream, SDK transport (before)',
    stream: true,
    run: async () =>
      consume(await oursSdk.createCompletion({ model: 'gpt-4o-mini-latest', messages, stream: true }), hasText),
  },
  {
    name: 'ai-stream',
    label: 'AI SDK streamText',
    stream: true,
    run: async () => consume(streamText({ model: aiModel, ...aiPrompt }).textStream, (text) => text.length > 0),
  },
  {
    name: 'sdk-stub',
    label: 'in-process: openai SDK',
    stream: false,
    weight: 4,
    run: async () => void (await sdkStub.chat.completions.create({ model: 'gpt-4o-mini', messages })),
  },
  {
    name: 'ours-stub',
    label: 'in-process: createCompletion',
    stream: false,
    weight: 4,
    run: async () => void (await oursStub.createCompletion({ model: 'gpt-4o-mini-latest', messages })),
  },
  {
    name: 'ours-stub-sdk',
    label: 'in-process: createCompletion, SDK transport (before)',
    stream: false,
    weight: 4,
    run: async () => void (await oursStubSdk.createCompletion({ model: 'gpt-4o-mini-latest', messages })),
  },
  {
    name: 'ours-schema-stub-sdk',
    label: 'in-process: createCompletion json_schema, SDK transport (before)',
    stream: false,
    weight: 4,
    run: async () =>
      void (await oursStubSdk.createCompletion({
        model: 'gpt-4o-mini-latest',
        messages,
        response_format: responseFormat,
      })),
  },
  {
    name: 'ours-schema-stub',
    label: 'in-process: createCompletion json_schema',
    stream: false,
    weight: 4,
    run: async () =>
      void (await oursStub.createCompletion({
        model: 'gpt-4o-mini-latest',
        messages,
        response_format: responseFormat,
      })),
  },
  {
    name: 'sdk-stream-stub',
    label: 'in-process: openai SDK stream',
    stream: true,
    weight: 4,
    run: async () =>
      consume(await sdkStub.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true }), hasText),
  },
  {
    name: 'ours-stream-stub',
    label: 'in-process: createCompletion stream',
    stream: true,
    weight: 4,
    run: async () =>
      consume(await oursStub.createCompletion({ model: 'gpt-4o-mini-latest', messages, stream: true }), hasText),
  },
];

const gc = (globalThis as { gc?: () => void }).gc;

async function batch(
  scenario: Scenario,
  baseCalls: number,
  concurrency: number,
): Promise<{ stats: BatchStats; latencies: number[]; ttfc: number[] }> {
  gc?.();
  const calls = baseCalls * (scenario.weight ?? 1);
  const latencies = new Array<number>(calls);
  const ttfc: number[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < calls; index = next++) {
      const started = performance.now();
      const first = await scenario.run();
      const ended = performance.now();
      latencies[index] = ended - started;
      if (typeof first === 'number' && first > 0) ttfc.push(first - started);
    }
  };
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallMs = performance.now() - started;
  // Call records are built on the next turn of the event loop: let that run and bill it to this batch.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  const cpu = process.cpuUsage(cpuStart);
  const sorted = [...latencies].sort((a, b) => a - b);
  const sortedTtfc = [...ttfc].sort((a, b) => a - b);
  return {
    stats: {
      medianMs: quantile(sorted, 0.5),
      p99Ms: quantile(sorted, 0.99),
      callsPerSecond: (calls / wallMs) * 1000,
      cpuUsPerCall: (cpu.user + cpu.system) / calls,
      ttfcMedianMs: scenario.stream ? quantile(sortedTtfc, 0.5) : null,
    },
    latencies,
    ttfc,
  };
}

export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

async function main(): Promise<void> {
  const only = args.only?.split(',');
  const selected = only ? scenarios.filter((scenario) => only.includes(scenario.name)) : scenarios;
  const concurrency = Number(args.concurrency);

  if (args.alloc) {
    process.stdout.write(`${JSON.stringify(await allocations(selected, Number(args.alloc)))}\n`);
    await Promise.all([ours.close(), oursSdk.close(), oursStub.close(), oursStubSdk.close(), floorAgent.close()]);
    return;
  }

  if (args.profile) {
    // --profile <calls>: warm up, then the calls under --cpu-prof (the profile covers the whole process).
    // The profile covers the whole process; bench/profile.ts keeps only the samples between these two marks
    // (V8 profile timestamps and hrtime share the monotonic clock).
    for (const scenario of selected) await batch(scenario, 500, concurrency);
    const started = process.hrtime.bigint() / 1000n;
    const cpuStart = process.cpuUsage();
    for (const scenario of selected) await batch(scenario, Number(args.profile), concurrency);
    const cpu = process.cpuUsage(cpuStart);
    process.stdout.write(
      `${JSON.stringify({
        profileStartUs: Number(started),
        profileEndUs: Number(process.hrtime.bigint() / 1000n),
        calls: Number(args.profile) * selected.length,
        cpuUs: cpu.user + cpu.system,
      })}\n`,
    );
    await Promise.all([ours.close(), oursSdk.close(), oursStub.close(), oursStubSdk.close(), floorAgent.close()]);
    return;
  }

  const rounds = Number(args.rounds);
  const seq = Number(args.seq);
  const calls = Number(args.calls);
  const modes: Array<[mode: string, calls: number, concurrency: number]> = [
    ['seq', seq, 1],
    [`c${concurrency}`, calls, concurrency],
  ];

  // Warm-up: JIT, connection pools, lazy SDK imports, validator compilation.
  for (const scenario of selected) {
    await batch(scenario, 50, 1);
    await batch(scenario, Math.max(200, concurrency * 8), concurrency);
  }

  const result: LoadResult = {
    settings: {
      rounds,
      seq,
      calls,
      concurrency,
      node: process.version,
      cpus: (await import('node:os')).availableParallelism(),
    },
    rounds: {},
    pooled: {},
  };
  const all: Record<string, Record<string, { latencies: number[]; ttfc: number[] }>> = {};
  for (let round = 0; round < rounds; round++) {
    const order = selected.map((_, index) => selected[(index + round) % selected.length]!);
    for (const scenario of order) {
      for (const [mode, count, inFlight] of modes) {
        const { stats, latencies, ttfc } = await batch(scenario, count, inFlight);
        ((result.rounds[scenario.name] ??= {})[mode] ??= []).push(stats);
        const pooled = ((all[scenario.name] ??= {})[mode] ??= { latencies: [], ttfc: [] });
        pooled.latencies.push(...latencies);
        pooled.ttfc.push(...ttfc);
      }
    }
    process.stderr.write(`  round ${round + 1}/${rounds} done\n`);
  }
  for (const [name, byMode] of Object.entries(all)) {
    for (const [mode, { latencies, ttfc }] of Object.entries(byMode)) {
      latencies.sort((a, b) => a - b);
      ttfc.sort((a, b) => a - b);
      (result.pooled[name] ??= {})[mode] = {
        medianMs: quantile(latencies, 0.5),
        p99Ms: quantile(latencies, 0.99),
        ttfcMedianMs: ttfc.length ? quantile(ttfc, 0.5) : null,
        ttfcP99Ms: ttfc.length ? quantile(ttfc, 0.99) : null,
      };
    }
  }
  await Promise.all([ours.close(), oursSdk.close(), oursStub.close(), oursStubSdk.close(), floorAgent.close()]);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/**
 * Bytes allocated per call: the heap's used size before and after `calls` sequential calls, kept only when no
 * collection ran in between (then nothing was freed, and the difference is what the calls allocated, records built
 * after them included). `null` when every try saw a collection.
 */
async function allocations(selected: Scenario[], calls: number): Promise<Record<string, number | null>> {
  const { getHeapStatistics } = await import('node:v8');
  const { PerformanceObserver } = await import('node:perf_hooks');
  let collections = 0;
  const observer = new PerformanceObserver((list) => {
    collections += list.getEntries().length;
  });
  observer.observe({ entryTypes: ['gc'] });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
  const result: Record<string, number | null> = {};
  for (const scenario of selected) {
    await batch(scenario, 200, 1);
    result[scenario.name] = null;
    for (let attempt = 0; attempt < 3 && result[scenario.name] === null; attempt++) {
      gc?.();
      await settle();
      collections = 0;
      const before = getHeapStatistics().used_heap_size;
      for (let call = 0; call < calls; call++) await scenario.run();
      await settle();
      const after = getHeapStatistics().used_heap_size;
      if (collections === 0) result[scenario.name] = Math.round((after - before) / calls);
    }
  }
  observer.disconnect();
  return result;
}

await main();
process.exit(0);

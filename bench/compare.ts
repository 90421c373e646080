/**
 * A/B of createCompletion's own CPU between two source trees, in one process, with no network: both gateways and the
 * bare openai SDK get the same in-process stub fetch, batches are interleaved round by round, and the result is the
 * median of the per-round paired differences. Small changes (5-20 µs per call) are only visible this way on a
 * noisy machine; the HTTP benchmark's noise is ±100 µs.
 *
 *   node --expose-gc bench/compare.ts <treeA> <treeB> [--case plain|schema|big|stream] [--rounds 15] [--calls 3000]
 *       [--records-off-b]
 *
 * A tree is a directory holding `src/index.ts` (this checkout is `.`; a patched copy or a `git worktree` is the
 * other). `--case big` sends a 30-message, 21 kB conversation; `--case stream` reads a 19-chunk stream to its end;
 * `--records-off-b` turns recording off in B, which measures what recording costs.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import { completion, streamHead, streamTail } from './payloads.ts';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    case: { type: 'string', default: 'plain' },
    rounds: { type: 'string', default: '15' },
    calls: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '32' },
    'records-off-b': { type: 'boolean', default: false },
  },
});
if (positionals.length !== 2)
  throw new Error('usage: node --expose-gc bench/compare.ts <treeA> <treeB> [--case plain|schema|big|stream]');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

type GatewayModule = typeof import('../src/index.ts');
const load = async (tree: string) => (await import(pathToFileURL(resolve(tree, 'src/index.ts')).href)) as GatewayModule;
const [a, b] = await Promise.all(positionals.map(load));

// A JSON answer states its length, as an uncompressed one does (docs/performance.md: a caller's own fetch limits
// the size of a body without one as it streams, at a cost).
const headers = {
  'content-type': 'application/json',
  'x-request-id': 'req_bench',
  'content-length': String(completion.byteLength),
};
const stream = args.case === 'stream';
const sse = Buffer.concat([streamHead, streamTail]);
const stubFetch = (async () =>
  stream
    ? new Response(sse, { headers: { 'content-type': 'text/event-stream' } })
    : new Response(completion, { headers })) as unknown as typeof fetch;
const apiKey = 'sk-bench-0000000000000000';
const baseURL = 'http://127.0.0.1:9/v1';
const messages: Array<{ role: 'system' | 'user'; content: string }> = [
  { role: 'system', content: 'You are a terse geography assistant. Answer with facts only.' },
  {
    role: 'user',
    content: 'Which city is the capital of France, in which country is it, and how many people live there?',
  },
];
if (args.case === 'big') {
  for (let index = 0; index < 30; index++)
    messages.push({
      role: index % 2 ? 'user' : 'system',
      content: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(12),
    });
}
const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, country: { type: 'string' }, population: { type: 'integer', minimum: 0 } },
  required: ['city', 'country', 'population'],
  additionalProperties: false,
};
const request = {
  model: 'gpt-4o-mini-latest',
  messages,
  ...(args.case === 'schema'
    ? { response_format: { type: 'json_schema' as const, json_schema: { name: 'city', schema, strict: true } } }
    : {}),
};
const gatewayA = a!.createGateway({ env: {}, providers: { openai: { apiKey, baseURL, fetch: stubFetch } } });
const gatewayB = b!.createGateway({
  env: {},
  ...(args['records-off-b'] ? { records: false as const } : {}),
  providers: { openai: { apiKey, baseURL, fetch: stubFetch } },
});
const sdk = new OpenAI({ apiKey, baseURL, fetch: stubFetch });

/** `--case stream`: every chunk read to the end. */
async function drain(chunks: AsyncIterable<unknown>): Promise<void> {
  for await (const _chunk of chunks);
}
const cases: Record<string, () => Promise<unknown>> = stream
  ? {
      sdk: async () => drain(await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true })),
      A: async () => drain(await gatewayA.createCompletion({ ...request, stream: true })),
      B: async () => drain(await gatewayB.createCompletion({ ...request, stream: true })),
    }
  : {
      sdk: () => sdk.chat.completions.create({ model: 'gpt-4o-mini', messages }),
      A: () => gatewayA.createCompletion(request),
      B: () => gatewayB.createCompletion(request),
    };

async function batch(call: () => Promise<unknown>, calls: number, concurrency: number): Promise<number> {
  gc!();
  let next = 0;
  const started = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < calls) await call();
    }),
  );
  // Records are built on the next turn of the event loop: bill them to this batch.
  await new Promise((done) => setImmediate(done));
  await new Promise((done) => setImmediate(done));
  const cpu = process.cpuUsage(started);
  return (cpu.user + cpu.system) / calls;
}

const calls = Number(args.calls);
const concurrency = Number(args.concurrency);
for (const call of Object.values(cases)) await batch(call, calls, concurrency);
const results: Record<string, number[]> = { sdk: [], A: [], B: [] };
const names = Object.keys(cases);
for (let round = 0; round < Number(args.rounds); round++) {
  for (const name of names.map((_, index) => names[(index + round) % names.length]!))
    results[name]!.push(await batch(cases[name]!, calls, concurrency));
}
const median = (values: number[]) => [...values].sort((x, y) => x - y)[values.length >> 1]!;
const paired = (left: string, right: string) =>
  median(results[left]!.map((value, index) => value - results[right]![index]!));
console.log(
  `case ${args.case}, ${args.rounds} rounds × ${calls} calls at concurrency ${concurrency}; CPU µs per call, ` +
    `medians of rounds`,
);
console.log(
  `  openai SDK alone ${median(results.sdk!).toFixed(1)}, A ${median(results.A!).toFixed(1)}, B ` +
    `${median(results.B!).toFixed(1)}`,
);
console.log(
  `  A − SDK ${paired('A', 'sdk').toFixed(1)}, B − SDK ${paired('B', 'sdk').toFixed(1)}, B − A ` +
    `${paired('B', 'A').toFixed(1)} (paired per round)`,
);
await Promise.all([gatewayA.close(), gatewayB.close()]);
process.exit(0);

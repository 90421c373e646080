/**
 * What hedging buys against a provider with a slow tail, in one run: two fake OpenAI-compatible providers (the first
 * offering and a fallback model) that answer in `--fast` ms, except `--tail` of the replies, which take `--slow` ms.
 * The same calls run without hedging and with `hedge: { afterMs }`; prints p50 / p90 / p99 of each and how many
 * requests the hedge added.
 *
 *   node bench/hedging.ts [--calls 400] [--concurrency 4] [--fast 20] [--slow 1000] [--tail 0.1] [--after 100]
 */
import { parseArgs } from 'node:util';
import { createGateway } from '../src/index.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../test/fake-servers/openai-server.ts';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '400' },
    concurrency: { type: 'string', default: '4' },
    fast: { type: 'string', default: '20' },
    slow: { type: 'string', default: '1000' },
    tail: { type: 'string', default: '0.1' },
    after: { type: 'string', default: '100' },
  },
});
const calls = Number(values.calls);
const concurrency = Number(values.concurrency);

/** A seeded generator, so both runs meet the same slow replies in the same places. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return state / 2 ** 32;
  };
}

function delays(seed: number): number[] {
  const next = random(seed);
  return Array.from({ length: calls * 2 }, () =>
    next() < Number(values.tail) ? Number(values.slow) : Number(values.fast),
  );
}

async function run(primary: FakeOpenAIServer, backup: FakeOpenAIServer, hedge: boolean) {
  primary.requests.length = 0;
  backup.requests.length = 0;
  primary.enqueue(...delays(1).map((delayMs) => ({ delayMs })));
  backup.enqueue(...delays(2).map((delayMs) => ({ delayMs })));
  const gateway = createGateway({
    env: {},
    providers: {
      openai: { apiKey: 'sk-a', baseURL: primary.url },
      groq: { apiKey: 'sk-b', baseURL: backup.url },
    },
    retry: { maxRetries: 0 },
    ...(hedge ? { hedge: { afterMs: Number(values.after) } } : {}),
  });
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < calls; index = next++) {
      const started = performance.now();
      await gateway.createCompletion({
        model: 'openai/gpt-4o-mini',
        fallbacks: ['groq/llama-3.3-70b-versatile'],
        messages: [{ role: 'user', content: `call ${index}` }],
      });
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await gateway.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(0);
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), extra: backup.requests.length };
}

const [primary, backup] = await Promise.all([startFakeOpenAIServer(), startFakeOpenAIServer()]);
try {
  const without = await run(primary, backup, false);
  const hedged = await run(primary, backup, true);
  console.log(
    `${calls} calls at ${concurrency} in flight; replies ${values.fast} ms, ${values.tail} of them ${values.slow} ms`,
  );
  console.log('| | p50 ms | p90 ms | p99 ms | requests to the second provider |\n|---|---:|---:|---:|---:|');
  console.log(`| no hedge | ${without.p50} | ${without.p90} | ${without.p99} | ${without.extra} |`);
  console.log(`| hedge afterMs ${values.after} | ${hedged.p50} | ${hedged.p90} | ${hedged.p99} | ${hedged.extra} |`);
} finally {
  await Promise.all([primary.close(), backup.close()]);
}

/**
 * What a response-cache hit costs next to a miss, in one run: `createCompletion` against the fake OpenAI server on
 * loopback with a 1.6 kB prompt, `cache: 'always'`; misses (a new prompt each call), then hits from the memory store
 * and from Redis (a throwaway `redis-server`, Debian's package). Prints median and p99 of each.
 *
 *   node bench/cache-hit.ts [--calls 2000]
 */
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { RedisCacheStore } from '../src/cache/redis-cache-store.ts';
import type { ResponseCacheStore } from '../src/entries/stores.ts';
import { createGateway } from '../src/index.ts';
import { startFakeOpenAIServer } from '../test/fake-servers/openai-server.ts';
import { startRedis } from '../test/helpers/redis.ts';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '2000' } } });
const calls = Number(values.calls);
const prompt = 'Summarise the following notes for the on-call engineer. '.repeat(28);

async function timings(store: ResponseCacheStore | undefined, server: { url: string }, hit: boolean) {
  const gateway = createGateway({
    env: {},
    providers: { openai: { apiKey: 'sk-bench', baseURL: server.url } },
    cache: store ? { store } : {},
  });
  const ask = (index: number) =>
    gateway.createCompletion({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: hit ? prompt : `${prompt} ${index}` }],
      cache: 'always',
    });
  await ask(-1);
  const latencies: number[] = [];
  for (let index = 0; index < calls; index++) {
    const started = performance.now();
    const answer = await ask(index);
    latencies.push(performance.now() - started);
    if ((answer.switchyard.cache === 'hit') !== hit) throw new Error(`expected a ${hit ? 'hit' : 'miss'}`);
  }
  await gateway.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(2);
  return `${at(0.5)} | ${at(0.99)}`;
}

const server = await startFakeOpenAIServer();
const redis = await startRedis();
if (!redis) throw new Error('Redis is not installed (apt-get install redis-server).');
const client = new Redis(redis.url);
try {
  console.log(
    `${calls} sequential calls each, prompt ${prompt.length} bytes\n| case | median ms | p99 ms |\n|---|---:|---:|`,
  );
  console.log(`| miss (a new prompt each call) | ${await timings(undefined, server, false)} |`);
  console.log(`| hit, memory store | ${await timings(undefined, server, true)} |`);
  console.log(`| hit, Redis store | ${await timings(new RedisCacheStore(client), server, true)} |`);
} finally {
  client.disconnect();
  await redis.stop();
  await server.close();
}

import type { Redis } from 'ioredis';
import type { SpendStore } from './spend-store.ts';

/** Budget spend in Redis, shared by every replica: one float per slot, kept for the rest of its window. */
export class RedisSpendStore implements SpendStore {
  readonly #redis: Redis;

  constructor(redis: Redis) {
    this.#redis = redis;
  }

  async spent(slot: string): Promise<number> {
    return Number((await this.#redis.get(`switchyard:spend:${slot}`)) ?? 0);
  }

  async add(slot: string, usd: number, ttlMs: number): Promise<void> {
    const key = `switchyard:spend:${slot}`;
    await this.#redis.multi().incrbyfloat(key, usd).pexpire(key, ttlMs).exec();
  }
}

/**
 * A token bucket per key in Redis, taken atomically (a Lua script on Redis's own clock, so replicas agree):
 * `capacity` requests at once, refilled at `perMs` a millisecond. Returns whether a token was taken, and the tokens
 * left (negative time to wait is derived by the caller).
 */
const TAKE = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = clock[1] * 1000 + clock[2] / 1000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + (now - at) * per_ms)
local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], 120000)
return {taken, tostring(tokens)}
`;

export async function takeRedisToken(
  redis: Redis,
  id: string,
  capacity: number,
  perMs: number,
): Promise<{ taken: boolean; tokens: number }> {
  const [taken, tokens] = (await redis.eval(TAKE, 1, `switchyard:rate:${id}`, capacity, perMs)) as [number, string];
  return { taken: taken === 1, tokens: Number(tokens) };
}

import type { Redis } from 'ioredis';
import { CHARGE_RETRY_MS } from './give-back.ts';
import type { SlotCharge, SlotHold, SlotRefusal, SpendStore } from './spend-store.ts';
import type { TokenBuckets, TokenTake } from './token-buckets.ts';

/**
 * Checks every slot and, when each has room, holds the call's amounts: one script, so replicas admitting at the same
 * moment see each other's holds. KEYS: per slot its spend and its holds (a sorted set of `<id>|<amount>` scored by
 * expiry, on Redis's clock, so a replica that died leaves holds that lapse). ARGV: the hold time, then per slot its
 * limit and member (empty: check only). Returns 0, or the 1-based slot that is full with its spent and held.
 */
const RESERVE = `
local clock = redis.call('TIME')
local now = clock[1] * 1000 + math.floor(clock[2] / 1000)
local hold_ms = tonumber(ARGV[1])
local slots = #KEYS / 2
for i = 1, slots do
  local holds = KEYS[2 * i]
  redis.call('ZREMRANGEBYSCORE', holds, '-inf', now)
  local spent = tonumber(redis.call('GET', KEYS[2 * i - 1]) or '0')
  local held = 0
  for _, member in ipairs(redis.call('ZRANGE', holds, 0, -1)) do
    held = held + (tonumber(string.match(member, '|([^|]*)$')) or 0)
  end
  if spent + held >= tonumber(ARGV[2 * i]) then return {i, tostring(spent), tostring(held)} end
end
for i = 1, slots do
  local member = ARGV[2 * i + 1]
  if member ~= '' then
    local holds = KEYS[2 * i]
    redis.call('ZADD', holds, now + hold_ms, member)
    if redis.call('PTTL', holds) < hold_ms then redis.call('PEXPIRE', holds, hold_ms) end
  end
end
return {0, '0', '0'}
`;

/**
 * Budget spend in Redis, shared by every replica: one float per slot, kept for the rest of its window, and beside it
 * the holds of the calls in flight (`reserve`), each lapsing on its own if its replica never settles it.
 */
export class RedisSpendStore implements SpendStore {
  readonly component = 'redis';
  readonly #redis: Redis;
  /** Redis's clock less this process's, sampled on each connection and at most a minute apart. */
  #offsetMs = 0;
  #sampledAt = Number.NEGATIVE_INFINITY;

  constructor(redis: Redis) {
    this.#redis = redis;
    // A failover may bring another server's clock.
    redis.on('ready', () => this.#sample());
    this.#sample();
  }

  /** Redis's time, so that every replica charges the same window (this process's until the first sample). */
  now(): Date {
    if (performance.now() - this.#sampledAt > CLOCK_SAMPLE_MS) this.#sample();
    return new Date(Date.now() + this.#offsetMs);
  }

  #sample(): void {
    this.#sampledAt = performance.now();
    const sent = Date.now();
    this.#redis.time().then(
      ([seconds, micros]) => {
        const redisMs = Number(seconds) * 1000 + Number(micros) / 1000;
        // Read at the middle of the round trip.
        this.#offsetMs = redisMs - (sent + Date.now()) / 2;
      },
      () => {
        // Unanswered: the offset stays; asked again on the next connection or minute.
        this.#sampledAt = Number.NEGATIVE_INFINITY;
      },
    );
  }

  async spent(slot: string): Promise<number> {
    return Number((await this.#redis.get(spendKey(slot))) ?? 0);
  }

  async reserve(id: string, holds: readonly SlotHold[], holdMs: number): Promise<SlotRefusal | undefined> {
    const keys = holds.flatMap(({ slot }) => [spendKey(slot), heldKey(slot)]);
    const args = holds.flatMap((hold) => [String(hold.limit), hold.amount > 0 ? member(id, hold) : '']);
    const [full, spent, held] = (await this.#redis.eval(
      RESERVE,
      keys.length,
      ...keys,
      String(Math.max(1, Math.ceil(holdMs))),
      ...args,
    )) as [number, string, string];
    return full === 0 ? undefined : { index: full - 1, spent: Number(spent), held: Number(held) };
  }

  async settle(id: string, released: readonly SlotHold[], charges: readonly SlotCharge[]): Promise<void> {
    const keys = [settledKey(id), ...released.map((hold) => heldKey(hold.slot)), ...charges.map(spendKeyOf)];
    const args = [
      String(SETTLED_MARKER_MS),
      String(released.length),
      ...released.map((hold) => member(id, hold)),
      ...charges.flatMap(({ amount, ttlMs }) => [String(amount), String(Math.max(1, Math.ceil(ttlMs)))]),
    ];
    await this.#redis.eval(SETTLE, keys.length, ...keys, ...args);
  }
}

/**
 * Releases a call's holds and adds its charges, once per call id: a settle whose answer was lost (a timeout after
 * Redis applied it) may be sent again (`settleRetried`), and its charges must not count twice. KEYS: the call's
 * settled marker, then the released holds' sets, then the charged spends. ARGV: the marker's time to live, the
 * number of released holds, their members, then each charge's amount and time to live.
 */
const SETTLE = `
local released = tonumber(ARGV[2])
for i = 1, released do redis.call('ZREM', KEYS[1 + i], ARGV[2 + i]) end
local charges = #KEYS - 1 - released
if charges == 0 then return 0 end
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) == false then return 0 end
for i = 1, charges do
  local key = KEYS[1 + released + i]
  redis.call('INCRBYFLOAT', key, ARGV[2 + released + 2 * i - 1])
  redis.call('PEXPIRE', key, ARGV[2 + released + 2 * i])
end
return charges
`;

/** How long a call's settled marker is kept: longer than a settle is retried for (`CHARGE_RETRY_MS`). */
const SETTLED_MARKER_MS = CHARGE_RETRY_MS + 60_000;

/** How long a clock sample is used before Redis is asked again. */
const CLOCK_SAMPLE_MS = 60_000;
const spendKey = (slot: string) => `switchyard:spend:${slot}`;
const spendKeyOf = (charge: SlotCharge) => spendKey(charge.slot);
const settledKey = (id: string) => `switchyard:settled:${id}`;
const heldKey = (slot: string) => `switchyard:held:${slot}`;
const member = (id: string, hold: SlotHold) => `${id}|${hold.amount}`;

/** A key's bucket as it stands now (Redis's own clock), refilled since it was last touched: `tokens`, `now`. */
const REFILL = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = clock[1] * 1000 + clock[2] / 1000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
-- A clock that stepped back (a failover to a node behind) refills nothing; it takes nothing back either.
tokens = math.min(capacity, tokens + math.max(0, now - at) * per_ms)
`;

/**
 * A token bucket per key in Redis, taken atomically (a Lua script on Redis's own clock, so replicas agree):
 * `capacity` requests at once, refilled at `perMs` a millisecond. Returns whether a token was taken, and the tokens
 * left (negative time to wait is derived by the caller).
 */
const TAKE = `${REFILL}local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], 120000)
return {taken, tostring(tokens)}
`;

/** The tokens left in a key's bucket now, refilled as `TAKE` would, taking none (for `GET /v1/keys`). */
const PEEK = `${REFILL}return tostring(tokens)
`;

/** Request rates in Redis, shared by every replica: each bucket taken atomically on Redis's clock (`TAKE`). */
export class RedisTokenBuckets implements TokenBuckets {
  readonly component = 'redis';
  readonly #redis: Redis;

  constructor(redis: Redis) {
    this.#redis = redis;
  }

  async take(bucket: string, capacity: number, perMs: number): Promise<TokenTake> {
    const [taken, tokens] = (await this.#redis.eval(TAKE, 1, rateKey(bucket), capacity, perMs)) as [number, string];
    return { taken: taken === 1, tokens: Number(tokens) };
  }

  async peek(bucket: string, capacity: number, perMs: number): Promise<number> {
    return Number(await this.#redis.eval(PEEK, 1, rateKey(bucket), capacity, perMs));
  }
}

const rateKey = (bucket: string) => `switchyard:rate:${bucket}`;

import type { Redis } from 'ioredis';
import { redactSecrets, urlCredentials } from '../internal/redact.ts';

/** How long a Redis command may wait for its answer before it is an outage (a hung or unreachable server). */
const REDIS_COMMAND_TIMEOUT_MS = 500;
/** How long `serve` keeps trying to reach Redis when it starts, by default. */
export const DEFAULT_REDIS_WAIT_MS = 30_000;
/** Pauses between attempts at the start: 250 ms, doubling, at most 2 s. */
const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 2_000;

export interface RedisStart {
  /** How long to keep trying before the start fails (0: one attempt). */
  waitMs: number;
  log: (level: 'info' | 'warn', msg: string, fields: Record<string, unknown>) => void;
}

interface RedisWatcher {
  down(reason: unknown): void;
  up(): void;
}

/**
 * A Redis connection, checked before the server listens; its URL (and any password in it) is never logged. Made to
 * fail fast: while it is disconnected a command fails at once (no offline queue), a command in flight when the
 * connection drops is not resent (it may have been applied), and one without an answer fails after 500 ms. The
 * client reconnects by itself (every 100 ms, then up to every second); `onState` hears each loss and return.
 *
 * A Redis that is restarting, paused or failing over when a replica starts is waited for (`start.waitMs`), each
 * failed attempt logged with its cause; one that refuses the client (a wrong password) fails at once.
 */
export async function connectRedis(url: string, start: RedisStart, onState?: RedisWatcher): Promise<Redis> {
  const began = performance.now();
  const secrets = urlCredentials(url);
  for (let attempt = 1; ; attempt++) {
    const outcome = await tryConnect(url);
    if ('redis' in outcome) {
      if (attempt > 1) start.log('info', 'redis reachable', { component: 'redis', attempts: attempt });
      await markData(outcome.redis);
      watch(outcome.redis, onState, start.log);
      return outcome.redis;
    }
    const cause = redactSecrets(outcome.cause, secrets);
    const waited = performance.now() - began;
    // The last pause is cut to the wait's end, for a last attempt then.
    const pause = Math.min(FIRST_PAUSE_MS * 2 ** (attempt - 1), LONGEST_PAUSE_MS, start.waitMs - waited);
    if (outcome.refused || pause <= 0) {
      const over = (waited / 1000).toFixed(1);
      const attempts = `${attempt} attempt${attempt === 1 ? '' : 's'}`;
      throw new Error(`Redis could not be reached after ${attempts} over ${over} s: ${cause}`);
    }
    start.log('warn', 'redis not reachable yet; retrying', {
      component: 'redis',
      attempt,
      error: cause,
      retry_in_ms: Math.round(pause),
      waited_ms: Math.round(waited),
      wait_ms: start.waitMs,
    });
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

type Attempt = { redis: Redis } | { cause: string; refused: boolean };

/**
 * One connection attempt. ioredis rejects a failed `connect()` with "Connection is closed." and reports why on its
 * `error` event: the last such error is the cause.
 */
async function tryConnect(url: string): Promise<Attempt> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  });
  let cause: unknown;
  const remember = (error: unknown) => (cause = error);
  redis.on('error', remember);
  try {
    await redis.connect();
    redis.off('error', remember);
    return { redis };
  } catch (error) {
    redis.disconnect();
    // Keep listening: a late error on the abandoned client must not crash the process.
    const reason = cause ?? error;
    return { cause: messageOf(reason), refused: isRefusal(reason) };
  }
}

/** Redis answered, and said no (a wrong password, an unknown database): waiting will not change that. */
function isRefusal(error: unknown): boolean {
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  return name === 'ReplyError' && typeof message === 'string' && /^(WRONGPASS|NOAUTH|NOPERM|ERR)\b/.test(message);
}

/**
 * A key no replica deletes: when Redis comes back without it, it came back without its data (restarted with no
 * persistence, flushed, or evicting), and the budgets' spend and the rate limits it counted restarted from zero.
 */
const DATA_MARKER = 'switchyard:data-marker';

/** Sets the marker (kept when it is there); a failure here is the connection's, reported by its own events. */
async function markData(redis: Redis): Promise<boolean> {
  try {
    return (await redis.set(DATA_MARKER, new Date().toISOString(), 'NX')) === 'OK';
  } catch {
    return false;
  }
}

function watch(redis: Redis, onState: RedisWatcher | undefined, log: RedisStart['log']): void {
  // Connection errors surface on the commands that need the connection; an idle one must not crash the process.
  redis.on('error', (error: unknown) => onState?.down(error));
  redis.on('ready', async () => {
    onState?.up();
    // The first replica back sets the marker again: the loss is logged once, by it.
    if (await markData(redis)) {
      log('warn', 'redis came back without its data: budgets and rate limits restarted from zero', {
        component: 'redis',
        hint: 'run Redis with persistence (appendonly yes) and without eviction (maxmemory-policy noeviction)',
      });
    }
  });
  if (onState) redis.on('close', () => onState.down('the connection closed'));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

import type { Redis } from 'ioredis';
import { redactSecrets, urlCredentials } from '../internal/redact.ts';
import { isReadOnlyReply } from './shared-state.ts';
import { type EngineStart, type StartAttempt, waitForEngine } from './wait-for-engine.ts';

/** How long a Redis command may wait for its answer before it is an outage (a hung or unreachable server). */
const REDIS_COMMAND_TIMEOUT_MS = 500;

interface RedisWatcher {
  down(reason: unknown): void;
  up(): void;
}

/**
 * A Redis connection, checked before the server listens; its URL (and any password in it) is never logged. Made to
 * fail fast: while it is disconnected a command fails at once (no offline queue), a command in flight when the
 * connection drops is not resent (it may have been applied), and one without an answer fails after 500 ms. The
 * client reconnects by itself (every 100 ms, then up to every second), and when a failover demoted the server it
 * is on (READONLY); `onState` hears each loss and return.
 *
 * A Redis that is restarting, paused or failing over when a replica starts is waited for (`start.waitMs`), each
 * failed attempt logged with its cause; one that refuses the client (a wrong password) fails at once.
 */
export async function connectRedis(url: string, start: EngineStart, onState?: RedisWatcher): Promise<Redis> {
  const secrets = urlCredentials(url);
  const redis = await waitForEngine({ component: 'redis', name: 'Redis' }, start, async () => {
    const outcome = await tryConnect(url);
    return 'cause' in outcome ? { ...outcome, cause: redactSecrets(outcome.cause, secrets) } : outcome;
  });
  await markData(redis);
  watch(redis, onState, start.log);
  return redis;
}

/**
 * One connection attempt. ioredis rejects a failed `connect()` with "Connection is closed." and reports why on its
 * `error` event: the last such error is the cause.
 */
async function tryConnect(url: string): Promise<StartAttempt<Redis>> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(times * 100, 1_000),
    // A primary demoted by a failover answers READONLY on the open connection: reconnect (to whatever the address
    // names now), failing the command (1, not 2: a command is never sent twice, it may have been applied).
    reconnectOnError: (error) => (isReadOnlyReply(error.message) ? 1 : false),
  });
  let cause: unknown;
  const remember = (error: unknown) => (cause = error);
  redis.on('error', remember);
  try {
    await redis.connect();
    redis.off('error', remember);
    return { opened: redis };
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

function watch(redis: Redis, onState: RedisWatcher | undefined, log: EngineStart['log']): void {
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

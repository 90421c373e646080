import type { Redis } from 'ioredis';
import { StorageUnavailableError } from '../errors.ts';
import { isPostgresOutage, postgresError } from '../internal/postgres-migrations.ts';
import { redactSecrets, urlCredentials } from '../internal/redact.ts';
import type { PostgresSink } from '../records/sinks/postgres-sink.ts';
import { EngineWatch, type EngineWatchOptions } from './engine-watch.ts';
import type { KeyStore } from './key-store.ts';

/** What replicas of `serve` share: records and keys in PostgreSQL, counters in Redis; each ready before listening. */

/** The records sink on PostgreSQL, its schema migrated before the server listens (a bad URL stops the start). */
async function postgresSink(url: string): Promise<PostgresSink> {
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error('--database takes a postgres:// URL.');
  const { PostgresSink } = await import('../records/sinks/postgres-sink.ts');
  const sink = new PostgresSink(url);
  await sink.ready();
  return sink;
}

/** The API keys in PostgreSQL, their table migrated before the server listens. */
async function postgresKeys(url: string): Promise<KeyStore> {
  const { PostgresKeyStore } = await import('./postgres-key-store.ts');
  const store = new PostgresKeyStore(url);
  await store.ready();
  return store;
}

/** How long a Redis command may wait for its answer before it is an outage (a hung or unreachable server). */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * A Redis connection, checked before the server listens; its URL (and any password in it) is never logged. Made to
 * fail fast: while it is disconnected a command fails at once (no offline queue), a command in flight when the
 * connection drops is not resent (it may have been applied), and one without an answer fails after 500 ms. The
 * client reconnects by itself (every 100 ms, then up to every second); `onState` hears each loss and return.
 */
async function connectRedis(url: string, onState?: { down(reason: unknown): void; up(): void }): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  });
  // Connection errors surface on the commands that need the connection; an idle one must not crash the process.
  let connected = false;
  redis.on('error', (error: unknown) => {
    if (connected) onState?.down(error);
  });
  try {
    await redis.connect();
    connected = true;
  } catch (error) {
    redis.disconnect();
    throw new Error(
      `Redis could not be reached: ${redactSecrets(error instanceof Error ? error.message : String(error), [])}`,
    );
  }
  if (onState) {
    redis.on('ready', () => onState.up());
    redis.on('close', () => onState.down('the connection closed'));
  }
  return redis;
}

/** Replies of a Redis that is loading, read-only, out of memory or failing over: an outage, not a wrong command. */
const REDIS_OUTAGE_REPLIES = /^(LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY|OOM)\b/;
/** ioredis's own errors when the connection is down, dropped or silent. */
const REDIS_CLIENT_ERRORS = /enableOfflineQueue|^Connection is closed|^Command timed out|max retries per request/i;

/** pg's own errors when the connection is down, dropped or silent. */
const PG_CLIENT_ERRORS = /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout)/;

/** Whether an error of ioredis says Redis cannot be used now (so the request gets 503, not 500). */
function isRedisOutage(error: unknown): boolean {
  if (error instanceof StorageUnavailableError) return error.component === 'redis';
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  if (typeof message !== 'string') return false;
  if (name === 'MaxRetriesPerRequestError' || REDIS_CLIENT_ERRORS.test(message)) return true;
  return name === 'ReplyError' && REDIS_OUTAGE_REPLIES.test(message);
}

/** A Redis failure as the 503 a client sees; the detail (never the URL) stays in its cause, for the log. */
export function redisUnavailable(error: unknown): StorageUnavailableError {
  if (error instanceof StorageUnavailableError) return error;
  return new StorageUnavailableError('redis', 'The counter store (Redis) is unavailable; retry shortly.', error);
}

/**
 * An engine's outage, whatever threw it: a `StorageUnavailableError`, or a raw error of ioredis or pg that escaped
 * its store. `undefined` for anything else (a bug stays a 500, logged with its stack).
 */
export function storageErrorOf(error: unknown): StorageUnavailableError | undefined {
  if (error instanceof StorageUnavailableError) return error;
  if (isRedisOutage(error)) return redisUnavailable(error);
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  const fromPg = name === 'DatabaseError' || (typeof message === 'string' && PG_CLIENT_ERRORS.test(message));
  if (fromPg && isPostgresOutage(error)) return postgresError(error) as StorageUnavailableError;
  return undefined;
}

/** The engines `serve` shares with its replicas, opened before it listens, and the watch over them. */
export interface SharedEngines {
  /** The API keys in PostgreSQL (`database`); `undefined`: the data directory's SQLite file. */
  keys: KeyStore | undefined;
  /** The records in PostgreSQL (`database`). */
  sink: PostgresSink | undefined;
  redis: Redis | undefined;
  watch: EngineWatch;
}

/**
 * Opens PostgreSQL (`database`: keys and records) and Redis (`redis`: counters) when given, and watches them:
 * `watch.states()` probes each for the health route, and an outage is logged once per interval.
 */
export async function openSharedEngines(
  urls: { database?: string | undefined; redis?: string | undefined },
  log: EngineWatchOptions['log'],
): Promise<SharedEngines> {
  const engines: SharedEngines = { keys: undefined, sink: undefined, redis: undefined, watch: undefined as never };
  engines.watch = new EngineWatch({
    probes: {
      ...(urls.database ? { postgres: () => engines.sink!.ping() } : {}),
      ...(urls.redis ? { redis: async () => void (await engines.redis!.ping()) } : {}),
    },
    log,
    secrets: [...urlCredentials(urls.database), ...urlCredentials(urls.redis)],
  });
  try {
    if (urls.database) {
      engines.keys = await postgresKeys(urls.database);
      engines.sink = await postgresSink(urls.database);
    }
    if (urls.redis) {
      engines.redis = await connectRedis(urls.redis, {
        down: (reason) => engines.watch.down('redis', reason),
        up: () => engines.watch.up('redis'),
      });
    }
  } catch (error) {
    await closeSharedEngines(engines);
    throw error;
  }
  return engines;
}

async function closeSharedEngines(engines: SharedEngines): Promise<void> {
  engines.watch.close();
  await Promise.resolve(engines.keys?.close()).catch(() => {});
  await engines.sink?.close().catch(() => {});
  await engines.redis?.quit().catch(() => engines.redis?.disconnect());
}

import type { Redis } from 'ioredis';
import { StorageUnavailableError } from '../errors.ts';
import { isPostgresOutage, postgresError } from '../internal/postgres-migrations.ts';
import { urlCredentials } from '../internal/redact.ts';
import type { PostgresSink } from '../records/sinks/postgres-sink.ts';
import { connectRedis, DEFAULT_REDIS_WAIT_MS } from './connect-redis.ts';
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
  urls: { database?: string | undefined; redis?: string | undefined; redisWaitMs?: number | undefined },
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
      const start = { waitMs: urls.redisWaitMs ?? DEFAULT_REDIS_WAIT_MS, log };
      engines.redis = await connectRedis(urls.redis, start, {
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

import type { Redis } from 'ioredis';
import { redactSecrets } from '../internal/redact.ts';
import type { PostgresSink } from '../records/sinks/postgres-sink.ts';
import type { KeyStore } from './key-store.ts';

/** What replicas of `serve` share: records and keys in PostgreSQL, counters in Redis; each ready before listening. */

/** The records sink on PostgreSQL, its schema migrated before the server listens (a bad URL stops the start). */
export async function postgresSink(url: string): Promise<PostgresSink> {
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error('--database takes a postgres:// URL.');
  const { PostgresSink } = await import('../records/sinks/postgres-sink.ts');
  const sink = new PostgresSink(url);
  await sink.ready();
  return sink;
}

/** The API keys in PostgreSQL, their table migrated before the server listens. */
export async function postgresKeys(url: string): Promise<KeyStore> {
  const { PostgresKeyStore } = await import('./postgres-key-store.ts');
  const store = new PostgresKeyStore(url);
  await store.ready();
  return store;
}

/** A Redis connection, checked before the server listens; its URL (and any password in it) is never logged. */
export async function connectRedis(url: string): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  // Connection errors surface on the commands that need the connection; an idle one must not crash the process.
  redis.on('error', () => {});
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(
      `Redis could not be reached: ${redactSecrets(error instanceof Error ? error.message : String(error), [])}`,
    );
  }
  return redis;
}

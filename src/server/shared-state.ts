import { StorageUnavailableError } from '../errors.ts';
import { isPostgresOutage, postgresError } from '../internal/postgres-migrations.ts';

/**
 * The outages of the engines replicas of `serve` share (PostgreSQL, Redis), told from other errors: each is a 503
 * naming its engine, not a 500. The engines are opened by `compose/open-stores.ts` and `compose/open-engines.ts`.
 */

/**
 * Replies of a Redis that is loading, read-only, out of memory or failing over: an outage, not a wrong command. At
 * the start, or after `-` inside a script's error: before Redis 7 a script's error carries the reply in its text.
 */
const REDIS_OUTAGE_REPLIES = /(?:^|: -)(LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY|OOM)\b/;
const READONLY_REPLY = /(?:^|: -)READONLY\b/;

/** Whether a Redis error is a demoted primary's READONLY (the connection must move: `connect-redis.ts`). */
export function isReadOnlyReply(message: string): boolean {
  return READONLY_REPLY.test(message);
}
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
function redisUnavailable(error: unknown): StorageUnavailableError {
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

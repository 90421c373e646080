import { StorageUnavailableError } from '../errors.ts';
import { redactSecrets } from './redact.ts';

/**
 * Pool settings that make an outage fail fast instead of hanging a request: a connection that does not open within
 * a second, or a query with no answer for `query_timeout`, is an error (`postgresError` calls it an outage). Spread
 * into every `pg` pool of the server: `new Pool({ connectionString, max: 4, ...FAIL_FAST_POOL })`.
 */
export const FAIL_FAST_POOL = { connectionTimeoutMillis: 1_000, query_timeout: 1_000 } as const;

/**
 * Errors of the connection, not of the query: the server is down, restarting, unreachable (its name not resolving
 * yet, as a container's database starting after it) or out of resources.
 */
const OUTAGE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const OUTAGE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout)|not queryable/;

/**
 * Whether a pg error says PostgreSQL cannot be reached or cannot take the work now, not that a query is wrong:
 * SQLSTATE 08… (connection), 53… (resources), 57P0… (shutting down), 57014 (a query the server cancelled: its
 * statement timeout), 58… (its I/O), 25006 (read only: a primary demoted by a failover refuses every write).
 */
export function isPostgresOutage(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (OUTAGE_CODES.has(code) || /^(08|53|57P0|57014|58|25006)/.test(code))) return true;
  return typeof message === 'string' && OUTAGE_MESSAGES.test(message);
}

/**
 * pg's errors can quote the connection settings; re-raised with the message only (URL passwords redacted). An
 * outage becomes a `StorageUnavailableError` (503, `storage_unavailable`, component `postgres`) whose message says
 * nothing of the server's address; the detail stays in its `cause`, for the log.
 */
export function postgresError(error: unknown): Error {
  if (error instanceof StorageUnavailableError) return error;
  const message = redactSecrets(error instanceof Error ? error.message : String(error), []);
  const code = (error as { code?: unknown })?.code;
  const redacted = Object.assign(new Error(`PostgreSQL: ${message || code}`), { code });
  if (!isPostgresOutage(error)) return redacted;
  return new StorageUnavailableError('postgres', 'The database (PostgreSQL) is unavailable; retry shortly.', redacted);
}

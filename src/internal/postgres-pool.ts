import type { ConnectionOptions } from 'node:tls';

/*
 * What the PostgreSQL stores need of `pg`, written out. These types are public (`new PostgresSink(options)`, the
 * stores' constructors), and a consumer of the package may not have `@types/pg`: they must not import it. A `pg`
 * Pool and its options are assignable to them (test/consumer/postgres-pool-types.test.ts checks it).
 */

/** A query as `pg` takes it, with the per-query `query_timeout` `pg` reads (its own types leave it out). */
export interface PostgresQuery {
  text: string;
  values?: unknown[] | undefined;
  query_timeout?: number | undefined;
}

/** What a query answers: its rows, and how many rows a write changed. */
export interface PostgresResult<Row = Record<string, unknown>> {
  rows: Row[];
  rowCount: number | null;
}

/** One connection taken from the pool, given back with `release` (an error: dropped, not given to another caller). */
export interface PostgresClient {
  query(query: PostgresQuery): Promise<PostgresResult>;
  query(text: string, values?: unknown[]): Promise<PostgresResult>;
  release(error?: Error | boolean): void;
  /** `pg`'s client is an event emitter: a connection dropped while checked out emits `error`. */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  off?(event: 'error', listener: (error: Error) => void): unknown;
}

/** A `pg` Pool, as the stores use it: queries, and a connection of its own for migrations and transactions. */
export interface PostgresPool {
  query(query: PostgresQuery): Promise<PostgresResult>;
  query(text: string, values?: unknown[]): Promise<PostgresResult>;
  connect(): Promise<PostgresClient>;
}

/** `pg` pool options (`new pg.Pool(options)`): the connection, TLS, timeouts and the pool's size. */
export interface PostgresPoolConfig {
  connectionString?: string | undefined;
  host?: string | undefined;
  port?: number | undefined;
  user?: string | undefined;
  password?: string | (() => string | Promise<string>) | undefined;
  database?: string | undefined;
  ssl?: boolean | ConnectionOptions | undefined;
  application_name?: string | undefined;
  options?: string | undefined;
  keepAlive?: boolean | undefined;
  connectionTimeoutMillis?: number | undefined;
  query_timeout?: number | undefined;
  statement_timeout?: false | number | undefined;
  lock_timeout?: number | undefined;
  idle_in_transaction_session_timeout?: number | undefined;
  max?: number | undefined;
  min?: number | undefined;
  idleTimeoutMillis?: number | null | undefined;
  allowExitOnIdle?: boolean | undefined;
  maxUses?: number | undefined;
  maxLifetimeSeconds?: number | undefined;
}

/**
 * A connection of the pool for a transaction or a migration, its errors heard. pg-pool listens to none of a
 * checked-out client's: a connection dropped meanwhile (the server restarting) would be an uncaught `error` that ends
 * the process. The query in flight fails by itself; `release` stops listening.
 */
export async function checkOut(pool: PostgresPool): Promise<PostgresClient> {
  const client = await pool.connect();
  const heard = () => {};
  client.on?.('error', heard);
  return {
    query: client.query.bind(client) as PostgresClient['query'],
    release: (error) => {
      client.off?.('error', heard);
      client.release(error);
    },
  };
}

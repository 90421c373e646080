import { lazyRequire } from '../internal/lazy-require.ts';
import { FAIL_FAST_POOL, postgresError } from '../internal/postgres-migrations.ts';
import {
  checkOut,
  type PostgresClient,
  type PostgresPool,
  type PostgresPoolConfig,
  type PostgresResult,
} from '../internal/postgres-pool.ts';
import { ConnectionGate } from './connection-gate.ts';
import {
  type Args,
  compile,
  LONGEST_QUERY_MS,
  type Queries,
  type Query,
  type Result,
  type RunOptions,
  type StorageEngine,
} from './engine.ts';
import { migratePostgres } from './migrate.ts';
import type { SchemaSpec } from './schema.ts';

const pg = lazyRequire<typeof import('pg')>('pg');

export interface PostgresEngineOptions {
  /** Connections at most (default 10). */
  max?: number | undefined;
  /** How long a query may take by default (default 1 s: an outage is a 503 within a second, not a hang). */
  queryTimeoutMs?: number | undefined;
  /**
   * The longest any query may be given (default `LONGEST_QUERY_MS`): each connection's `statement_timeout`, so that
   * PostgreSQL stops a query whose caller stopped waiting by then at the latest.
   */
  longestQueryMs?: number | undefined;
}

/** How long a request may queue for a connection when all are busy (a burst, not an outage: that fails in 1 s). */
const QUEUE_WAIT_MS = 15_000;

/** pg answers bigint and numeric as text: counts and sums come back as numbers, as from the other engines. */
const NUMBER_TYPES = new Set([20, 1700]);

/**
 * PostgreSQL through a `pg` pool, shared by every replica of `serve`. Every failure is re-raised without the
 * connection's settings (`postgresError`): an outage as `StorageUnavailableError`, a 503 naming PostgreSQL.
 */
export class PostgresEngine implements StorageEngine {
  readonly kind = 'postgres';
  readonly #pool: PostgresPool & { end?(): Promise<void> };
  readonly #timeoutMs: number;
  readonly #longestMs: number;
  readonly #ready = new Map<string, Promise<void>>();
  readonly #gate: ConnectionGate;
  /**
   * How the engine's own pool connects (the health probe connects so too, outside it); `undefined` for a pool opened
   * elsewhere, which the engine neither probes apart nor ends.
   */
  readonly #connectWith: PostgresPoolConfig | undefined;

  /** A `postgres://…` URL or pool options (a pool is made, and ended with the engine), or a pool opened elsewhere. */
  constructor(connection: string | PostgresPoolConfig | PostgresPool, options: PostgresEngineOptions = {}) {
    this.#timeoutMs = options.queryTimeoutMs ?? FAIL_FAST_POOL.query_timeout;
    this.#longestMs = Math.ceil(Math.max(this.#timeoutMs, options.longestQueryMs ?? LONGEST_QUERY_MS));
    if (typeof connection !== 'string' && 'connect' in connection) {
      this.#connectWith = undefined;
      this.#pool = connection as PostgresPool;
      const size = (connection as { options?: { max?: number } }).options?.max;
      this.#gate = new ConnectionGate(size ?? options.max ?? 10, QUEUE_WAIT_MS);
      return;
    }
    const config = typeof connection === 'string' ? { connectionString: connection } : connection;
    this.#connectWith = config as PostgresPoolConfig;
    const types = pg().types;
    const longest = this.#longestMs;
    const pool = new (pg().Pool)({
      max: options.max ?? 10,
      ...FAIL_FAST_POOL,
      query_timeout: this.#timeoutMs,
      // Set as a connection opens, before its first query (one that cannot take them is closed), not as startup
      // parameters, which PgBouncer refuses.
      onConnect: async (client: { query(text: string): Promise<unknown> }) => {
        await client.query(sessionSettings('statement_timeout' in config ? undefined : longest));
      },
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          NUMBER_TYPES.has(oid) ? Number : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
      },
      ...(config as PostgresPoolConfig),
    });
    this.#gate = new ConnectionGate(pool.options.max ?? 10, QUEUE_WAIT_MS);
    // An idle client's error (the server restarting) must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    this.#pool = pool as unknown as PostgresPool;
  }

  run<Row>(query: Query<Row>, args?: Args, options?: RunOptions): Promise<Result<Row>> {
    return this.#gate.hold(() => this.#on(this.#pool, query, args, options));
  }

  transaction<T>(work: (tx: Queries) => Promise<T>): Promise<T> {
    return this.#gate.hold(() => this.#transaction(work));
  }

  async #transaction<T>(work: (tx: Queries) => Promise<T>): Promise<T> {
    let client: PostgresClient;
    try {
      client = await checkOut(this.#pool);
    } catch (error) {
      throw postgresError(error);
    }
    const run: Queries['run'] = (query, args, options) => this.#on(client, query, args, options);
    const tx: Queries = { kind: 'postgres', run };
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(tx);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A connection that cannot even roll back is dropped, not handed to the next caller.
      await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
      // A query's failure is re-raised already; a refusal of the work itself (a 403) passes as it is.
      throw error;
    } finally {
      client.release(broken);
    }
  }

  ready(schema: SchemaSpec): Promise<void> {
    let ready = this.#ready.get(schema.name);
    if (!ready) {
      ready = this.#gate
        .hold(() => migratePostgres(this.#pool, schema))
        .catch((error: unknown) => {
          this.#ready.delete(schema.name);
          throw postgresError(error);
        });
      this.#ready.set(schema.name, ready);
    }
    return ready;
  }

  /**
   * Whether PostgreSQL answers within `timeoutMs`. On a connection of its own, not in the pool's queue: a pool busy
   * with a burst is not the database down (every replica failed its readiness at once). A pool given by the caller
   * is asked in its queue.
   */
  async ping(timeoutMs = 1_000): Promise<void> {
    try {
      if (!this.#connectWith) {
        await this.#gate.hold(() => this.#pool.query({ text: 'SELECT 1', query_timeout: timeoutMs }), timeoutMs);
        return;
      }
      const { max: _max, ...connectWith } = this.#connectWith as PostgresPoolConfig & { max?: number };
      const probe = new (pg().Client)({ ...connectWith, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
      // A probe whose connection drops fails its query; the event must not end the process.
      probe.on('error', () => {});
      try {
        await probe.connect();
        await probe.query('SELECT 1');
      } finally {
        await probe.end().catch(() => {});
      }
    } catch (error) {
      throw postgresError(error);
    }
  }

  /** Ends the pool once (each store of a database may close it: `pg` refuses a second end). */
  close(): Promise<void> {
    this.#closed ??= this.#connectWith ? Promise.resolve(this.#pool.end?.()) : Promise.resolve();
    return this.#closed;
  }
  #closed: Promise<void> | undefined;

  async #on<Row>(
    on: Pick<PostgresPool, 'query'>,
    query: Query<Row>,
    args: Args | undefined,
    options: RunOptions | undefined,
  ): Promise<Result<Row>> {
    const { sql, values } = compile(query, 'postgres', args);
    try {
      const result = (await on.query({
        text: sql,
        values: values.map(postgresValue),
        query_timeout: Math.min(options?.timeoutMs ?? this.#timeoutMs, this.#longestMs),
      })) as PostgresResult<Row>;
      return { rows: result.rows, changes: result.rowCount ?? result.rows.length };
    } catch (error) {
      throw postgresError(error);
    }
  }
}

/**
 * pg's query_timeout only stops the client waiting, and the pool then drops the connection: a connection's session
 * stops its query when the server sees the connection gone (checked each second, PostgreSQL 14 and later, where the
 * system allows: skipped elsewhere), and in any case by the longest any query is given (`statement_timeout`; a
 * caller's own, from its pool options, is left as it is).
 */
function sessionSettings(statementTimeoutMs: number | undefined): string {
  const statement = statementTimeoutMs === undefined ? '' : `SET statement_timeout = ${statementTimeoutMs}; `;
  return (
    `${statement}DO $$ BEGIN IF current_setting('server_version_num')::int >= 140000 THEN ` +
    "PERFORM set_config('client_connection_check_interval', '1000', false); END IF; " +
    'EXCEPTION WHEN others THEN NULL; END $$'
  );
}

/**
 * PostgreSQL's text cannot hold U+0000, which a caller may put in an agent id or a model name: in a column it
 * becomes U+FFFD (a record's JSON keeps it escaped, and exact).
 */
function postgresValue(value: unknown): unknown {
  return typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\ufffd') : value;
}

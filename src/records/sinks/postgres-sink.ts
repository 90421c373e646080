import type { Pool, QueryConfig } from 'pg';
import { PostgresAnnotationStore } from '../../annotations/postgres-annotation-store.ts';
import { PostgresExperimentStore } from '../../experiments/postgres-experiment-store.ts';
import { lazyRequire } from '../../internal/lazy-require.ts';
import { FAIL_FAST_POOL, isPostgresOutage, migrate, postgresError } from '../../internal/postgres-migrations.ts';
import type { PostgresPoolConfig } from '../../internal/postgres-pool.ts';
import { type CallQuery, type CallQueryOptions, type CallQueryResult, parseCallQuery } from '../call-query.ts';
import { resultOf } from '../call-query-rows.ts';
import type { CallRecord } from '../call-record.ts';
import type {
  AgentSummary,
  CallPage,
  CallStore,
  CallTextPage,
  DailyCostQuery,
  DailyCostRow,
  ListCallsQuery,
  WorkflowSummary,
} from '../call-store.ts';
import {
  compareAgentSummaries,
  compareDailyCostRows,
  dailyCostWindow,
  normalizeListQuery,
  parsedPage,
  recordTexts,
  type SizedRow,
  sizedPage,
  summarizeWorkflow,
} from '../call-store-queries.ts';
import { compileCallQuery, POSTGRES } from '../compile-call-query.ts';
import { roundUsd } from '../compute-cost.ts';
import { type RecordSink, RecordsRefusedError } from '../sink.ts';
import { Turns } from '../turns.ts';
import { listCallsSql } from './list-calls-sql.ts';
import { insertBatch, MIGRATIONS } from './postgres-schema.ts';

const pg = lazyRequire<typeof import('pg')>('pg');
/** Summaries over every record (`agents()`) can take seconds on a large table: a longer bound than a key lookup's. */
const QUERY_TIMEOUT_MS = 15_000;

/**
 * Stores records in PostgreSQL (a `pg` pool) and answers the call-store queries with SQL: the sibling of
 * `SqliteSink` for several processes sharing one database. The schema is created and migrated on first use, under
 * an advisory lock. Each batch is one multi-row insert; a batch PostgreSQL refuses is written again row by row, and
 * the refused rows are reported.
 */
export class PostgresSink implements RecordSink, CallStore {
  readonly #pool: Pool;
  #ready: Promise<void> | undefined;
  #experiments: PostgresExperimentStore | undefined;
  /** Pages' records are read one batch at a time, every page of every caller: one connection of the pool at most. */
  readonly #turns = new Turns();

  /** A `postgres://…` URL or `pg` pool options. */
  constructor(connection: string | PostgresPoolConfig) {
    const config = typeof connection === 'string' ? { connectionString: connection } : connection;
    // An unreachable server is an error within a second, not a hang (`FAIL_FAST_POOL`).
    this.#pool = new (pg().Pool)({ max: 4, ...FAIL_FAST_POOL, query_timeout: QUERY_TIMEOUT_MS, ...config });
    // An idle client's error (the server restarting) must not crash the process; the next query reconnects.
    this.#pool.on('error', () => {});
  }

  /** Creates or migrates the schema; every other method waits for it. */
  ready(): Promise<void> {
    this.#ready ??= migrate(this.#pool, 'calls', MIGRATIONS).catch((error: unknown) => {
      this.#ready = undefined;
      throw postgresError(error);
    });
    return this.#ready;
  }

  /** Whether PostgreSQL answers within `timeoutMs` (health checks); throws `StorageUnavailableError` if not. */
  async ping(timeoutMs = 1_000): Promise<void> {
    try {
      // pg reads a per-query `query_timeout` (its types leave it out).
      await this.#pool.query({ text: 'SELECT 1', query_timeout: timeoutMs } as QueryConfig);
    } catch (error) {
      throw postgresError(error);
    }
  }

  async write(records: CallRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.ready();
    try {
      const { text, values } = insertBatch(records);
      await this.#pool.query(text, values);
      return;
    } catch (error) {
      // Unreachable: the whole batch fails at once, not row by row (each would wait for its own connection).
      if (isPostgresOutage(error)) throw postgresError(error);
      if (records.length === 1) throw new RecordsRefusedError(1, 1, postgresError(error));
    }
    let refused = 0;
    let firstRefusal: unknown;
    for (const record of records) {
      try {
        const { text, values } = insertBatch([record]);
        await this.#pool.query(text, values);
      } catch (error) {
        refused += 1;
        firstRefusal ??= postgresError(error);
      }
    }
    if (refused > 0) throw new RecordsRefusedError(refused, records.length, firstRefusal);
  }

  /** Annotations in `switchyard_annotations`, on this pool. */
  annotationStore(): PostgresAnnotationStore {
    return new PostgresAnnotationStore(this.#pool);
  }

  /** Experiments in `switchyard_experiment*` tables, on this pool (one store per sink: its tables made once). */
  experimentStore(): PostgresExperimentStore {
    return (this.#experiments ??= new PostgresExperimentStore(this.#pool));
  }

  async get(id: string): Promise<CallRecord | null> {
    const rows = await this.#records('SELECT record FROM switchyard_calls WHERE id = $1', [id]);
    return rows[0] ?? null;
  }

  async list(query?: ListCallsQuery): Promise<CallPage> {
    const page = await this.listJson(query);
    return parsedPage(page.records, page.next_cursor);
  }

  /** The page's rows and their records' sizes first (no record read), then the records a batch at a time. */
  async listJson(query?: ListCallsQuery): Promise<CallTextPage> {
    const normalized = normalizeListQuery(query);
    const { sql, values } = listCallsSql(normalized, 'postgres');
    const sized = (await this.#query<SizedRow>(sql, values)).rows;
    const { rows, next_cursor } = sizedPage(sized, normalized.limit);
    const read = (ids: string[]) =>
      this.#turns.run(async () => {
        const found = await this.#query<{ id: string; record: string }>(
          'SELECT id, record FROM switchyard_calls WHERE id = ANY($1::text[])',
          [ids],
        );
        return new Map(found.rows.map((row) => [row.id, row.record]));
      });
    return { records: recordTexts(rows, read), next_cursor };
  }

  /** The record's size is its stored length (`octet_length` reads no TOAST): a larger record is not sent. */
  async getBounded(id: string, maxBytes: number): Promise<CallRecord | 'too_large' | null> {
    const sql =
      'SELECT CASE WHEN octet_length(record) <= $1 THEN record END AS record FROM switchyard_calls WHERE id = $2';
    const { rows } = await this.#query<{ record: string | null }>(sql, [maxBytes, id]);
    const row = rows[0];
    return row ? (row.record === null ? 'too_large' : (JSON.parse(row.record) as CallRecord)) : null;
  }

  async workflow(traceId: string): Promise<WorkflowSummary | null> {
    const calls = await this.#records(
      'SELECT record FROM switchyard_calls WHERE trace_id = $1 ORDER BY created_at, id',
      [traceId],
    );
    return summarizeWorkflow(traceId, calls);
  }

  async dailyCost(query: DailyCostQuery = {}): Promise<DailyCostRow[]> {
    const { since, until } = dailyCostWindow(query);
    const values: unknown[] = [since, until];
    if (query.workflow_name !== undefined) values.push(query.workflow_name);
    const { rows } = await this.#query<{
      day: string;
      workflow_name: string | null;
      calls: string;
      cost: number | null;
      unpriced: string;
    }>(
      'SELECT substr(created_at, 1, 10) AS day, workflow_name, count(*) AS calls, sum(cost_usd) AS cost, ' +
        'count(*) FILTER (WHERE cost_usd IS NULL) AS unpriced FROM switchyard_calls WHERE created_at >= $1 ' +
        `AND created_at < $2 ${query.workflow_name !== undefined ? 'AND workflow_name = $3' : ''} ` +
        'GROUP BY 1, 2',
      values,
    );
    return rows
      .map((row) => ({
        day: row.day,
        workflow_name: row.workflow_name,
        calls: Number(row.calls),
        cost_usd: roundUsd(row.cost ?? 0),
        unpriced_calls: Number(row.unpriced),
      }))
      .sort(compareDailyCostRows);
  }

  async agents(): Promise<AgentSummary[]> {
    const { rows } = await this.#query<Record<string, string | number | null>>(
      "SELECT agent_id, count(*) AS calls, count(*) FILTER (WHERE status = 'error') AS errors, " +
        'sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens, ' +
        'sum(reasoning_tokens) AS reasoning_tokens, sum(cost_usd) AS cost, ' +
        'count(*) FILTER (WHERE cost_usd IS NULL) AS unpriced, max(created_at) AS last_call_at ' +
        'FROM switchyard_calls GROUP BY agent_id',
    );
    return rows
      .map((row) => ({
        agent_id: row.agent_id as string | null,
        calls: Number(row.calls),
        errors: Number(row.errors),
        prompt_tokens: Number(row.prompt_tokens),
        completion_tokens: Number(row.completion_tokens),
        reasoning_tokens: Number(row.reasoning_tokens),
        cost_usd: roundUsd(Number(row.cost ?? 0)),
        unpriced_calls: Number(row.unpriced),
        last_call_at: row.last_call_at as string,
      }))
      .sort(compareAgentSummaries);
  }

  async queryCalls(query: CallQuery, options?: CallQueryOptions): Promise<CallQueryResult> {
    const parsed = parseCallQuery(query, options);
    const { sql, params } = compileCallQuery(parsed, POSTGRES);
    return resultOf((await this.#query<Record<string, unknown>>(sql, params)).rows, parsed);
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  async #records(text: string, values: unknown[]): Promise<CallRecord[]> {
    const { rows } = await this.#query<{ record: string }>(text, values);
    return rows.map((row) => JSON.parse(row.record) as CallRecord);
  }

  async #query<Row>(text: string, values: unknown[] = []): Promise<{ rows: Row[] }> {
    await this.ready();
    try {
      return (await this.#pool.query(text, values)) as unknown as { rows: Row[] };
    } catch (error) {
      throw postgresError(error);
    }
  }
}

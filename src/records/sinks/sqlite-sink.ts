import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { SqliteAnnotationStore } from '../../annotations/sqlite-annotation-store.ts';
import { SqliteExperimentStore } from '../../experiments/sqlite-experiment-store.ts';
import { loadSqlite } from '../../internal/load-sqlite.ts';
import { lazyNodeBuiltin } from '../../internal/node-builtin.ts';
import { type CallQuery, type CallQueryOptions, type CallQueryResult, parseCallQuery } from '../call-query.ts';
import { resultOf } from '../call-query-rows.ts';
import type { CallRecord } from '../call-record.ts';
import {
  type AgentSummary,
  type CallPage,
  type CallStore,
  type CallTextPage,
  type DailyCostQuery,
  type DailyCostRow,
  type ListCallsQuery,
  RECENT_TRACE_CALLS,
  type TraceSummary,
  type WorkflowSummary,
  type WorkflowTimeline,
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
  timelineOf,
  tracesOf,
} from '../call-store-queries.ts';
import { compileCallQuery, SQLITE } from '../compile-call-query.ts';
import { roundUsd } from '../compute-cost.ts';
import { type RecordSink, RecordsRefusedError } from '../sink.ts';
import { Turns } from '../turns.ts';
import { listCallsSql } from './list-calls-sql.ts';
import {
  INSERT,
  migrateCalls,
  parseRecord,
  rowOf,
  TIMING_COLUMNS,
  type TimingRow,
  timingOfRow,
} from './sqlite-schema.ts';

const nodeFs = lazyNodeBuiltin('node:fs', 'The SQLite call records (SqliteSink)');
const nodePath = lazyNodeBuiltin('node:path', 'The SQLite call records (SqliteSink)');

/** Stores records in a SQLite file through `node:sqlite` and answers the call-store queries with SQL. */
export class SqliteSink implements RecordSink, CallStore {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #insert: StatementSync;
  readonly #statements = new Map<string, StatementSync>();
  #experiments: SqliteExperimentStore | undefined;
  /** Pages' records are read synchronously: one batch per turn of the event loop, every page of every caller. */
  readonly #turns = new Turns();

  /** `path` is a file (its directory is created) or `:memory:`. */
  constructor(path: string) {
    this.path = path;
    if (path !== ':memory:') nodeFs().mkdirSync(nodePath().dirname(path), { recursive: true });
    this.#db = new (loadSqlite('SqliteSink').DatabaseSync)(path);
    // WAL lets readers (gateway.calls) run while a batch is written; NORMAL is durable across crashes of the process.
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
    migrateCalls(this.#db);
    this.#insert = this.#db.prepare(INSERT);
  }

  /**
   * One transaction per batch: a single fsync instead of one per row. A row SQLite refuses (or cannot bind) costs
   * that row only: the batch is written again row by row, a savepoint each, and the refused rows are reported in a
   * `RecordsRefusedError`. A write error of the database itself (disk full, I/O) fails the batch with SQLite's own
   * error, never with the error of a ROLLBACK that SQLite made already.
   */
  write(records: CallRecord[]): void {
    if (records.length === 0) return;
    try {
      this.#transaction(() => {
        for (const record of records) this.#insert.run(...rowOf(record));
      });
      return;
    } catch (error) {
      if (isStorageError(error)) throw error;
    }
    let refused = 0;
    let firstRefusal: unknown;
    this.#transaction(() => {
      for (const record of records) {
        this.#db.exec('SAVEPOINT row');
        try {
          this.#insert.run(...rowOf(record));
        } catch (error) {
          if (isStorageError(error)) throw error;
          this.#db.exec('ROLLBACK TO row');
          refused += 1;
          firstRefusal ??= error;
        }
        this.#db.exec('RELEASE row');
      }
    });
    if (refused > 0) throw new RecordsRefusedError(refused, records.length, firstRefusal);
  }

  /** Runs `work` in a transaction: committed, or rolled back and its error thrown (not the rollback's). */
  #transaction(work: () => void): void {
    this.#db.exec('BEGIN');
    try {
      work();
      this.#db.exec('COMMIT');
    } catch (error) {
      // SQLITE_FULL and I/O errors may have rolled the transaction back already.
      try {
        if (this.#db.isTransaction !== false) this.#db.exec('ROLLBACK');
      } catch {
        // The original error is the one that says what went wrong.
      }
      throw error;
    }
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  /** Runs any SQL on the database, for reports the store methods do not cover (`SELECT … FROM calls …`). */
  query(sql: string, ...params: SQLInputValue[]): Array<Record<string, SQLInputValue>> {
    return this.#statement(sql).all(...params) as Array<Record<string, SQLInputValue>>;
  }

  /** Annotations in this database's `annotations` table, on this connection. */
  annotationStore(): SqliteAnnotationStore {
    return new SqliteAnnotationStore(this.#db);
  }

  /** Experiments in this database's `experiment*` tables, on this connection (one store per sink). */
  experimentStore(): SqliteExperimentStore {
    return (this.#experiments ??= new SqliteExperimentStore(this.#db));
  }

  async get(id: string): Promise<CallRecord | null> {
    const row = this.#statement('SELECT record FROM calls WHERE id = ?').get(id) as { record: string } | undefined;
    return row ? parseRecord(row) : null;
  }

  async list(query?: ListCallsQuery): Promise<CallPage> {
    const page = await this.listJson(query);
    return parsedPage(page.records, page.next_cursor);
  }

  /** The page's rows and their records' sizes first (no record read), then the records a batch at a time. */
  async listJson(query?: ListCallsQuery): Promise<CallTextPage> {
    const normalized = normalizeListQuery(query);
    const { sql, values } = listCallsSql(normalized, 'sqlite');
    const sized = this.#statement(sql).all(...(values as SQLInputValue[])) as unknown as SizedRow[];
    const { rows, next_cursor } = sizedPage(sized, normalized.limit);
    // As bytes: no text decoded here to be encoded again for the socket. A batch per turn (`Turns`).
    const batch = 'SELECT id, CAST(record AS BLOB) AS record FROM calls WHERE id IN (SELECT value FROM json_each(?))';
    const read = (ids: string[]) =>
      this.#turns.run(() => {
        const found = this.#statement(batch).all(JSON.stringify(ids)) as Array<{ id: string; record: Uint8Array }>;
        return new Map(found.map((row) => [row.id, row.record]));
      });
    return { records: recordTexts(rows, read), next_cursor };
  }

  /** The record's size is read from the row's header (`octet_length`): a larger record is not read at all. */
  async getBounded(id: string, maxBytes: number): Promise<CallRecord | 'too_large' | null> {
    const sql = 'SELECT CASE WHEN octet_length(record) <= ? THEN record END AS record FROM calls WHERE id = ?';
    const row = this.#statement(sql).get(maxBytes, id) as { record: string | null } | undefined;
    return row ? (row.record === null ? 'too_large' : (JSON.parse(row.record) as CallRecord)) : null;
  }

  async workflow(traceId: string): Promise<WorkflowSummary | null> {
    const rows = this.#statement('SELECT record FROM calls WHERE trace_id = ? ORDER BY created_at ASC, id ASC').all(
      traceId,
    );
    return summarizeWorkflow(traceId, rows.map(parseRecord));
  }

  /** From the columns only: the page never parses a record's JSON, however large the records are. */
  async recentTraces(limit: number): Promise<TraceSummary[]> {
    const sql = `SELECT trace_id, workflow_name, created_at FROM calls WHERE trace_id IS NOT NULL
      ORDER BY created_at DESC, id DESC LIMIT ?`;
    return tracesOf(this.#statement(sql).all(RECENT_TRACE_CALLS) as unknown as TraceSummary[], limit);
  }

  /** The first `limit` calls from their columns, and the totals over all of them from SQL aggregates. */
  async workflowTimeline(traceId: string, limit: number): Promise<WorkflowTimeline | null> {
    const sql = `SELECT ${TIMING_COLUMNS} FROM calls WHERE trace_id = ? ORDER BY created_at ASC, id ASC LIMIT ?`;
    const rows = this.#statement(sql).all(traceId, limit);
    const calls = (rows as unknown as TimingRow[]).map(timingOfRow);
    const first = calls[0];
    if (!first) return null;
    if (calls.length < limit) return timelineOf(summarizeWorkflow(traceId, calls)!, limit);
    const agents = this.#statement(`SELECT agent_id, count(*) AS calls, coalesce(sum(cost_usd), 0) AS cost_usd,
      sum(cost_usd IS NULL) AS unpriced_calls, sum(prompt_tokens) AS prompt_tokens,
      sum(completion_tokens) AS completion_tokens
      FROM calls WHERE trace_id = ? GROUP BY agent_id ORDER BY min(created_at), min(id)`).all(traceId);
    const totals = this.#statement(`SELECT count(*) AS call_count, coalesce(sum(cost_usd), 0) AS cost_usd,
      sum(cost_usd IS NULL) AS unpriced_calls,
      max(unixepoch(created_at, 'subsec') * 1000 + latency_ms) AS end_ms FROM calls WHERE trace_id = ?`).get(
      traceId,
    ) as { call_count: number; cost_usd: number; unpriced_calls: number; end_ms: number };
    const named = this.#statement(`SELECT workflow_name FROM calls WHERE trace_id = ? AND workflow_name IS NOT NULL
      ORDER BY created_at ASC, id ASC LIMIT 1`).get(traceId);
    return {
      trace_id: traceId,
      workflow_name: (named?.workflow_name as string | undefined) ?? null,
      calls,
      call_count: totals.call_count,
      agents: (agents as unknown as WorkflowSummary['agents']).map((agent) => ({
        ...agent,
        cost_usd: roundUsd(agent.cost_usd),
      })),
      cost_usd: roundUsd(totals.cost_usd),
      unpriced_calls: totals.unpriced_calls,
      duration_ms: Math.round(totals.end_ms) - Date.parse(first.created_at),
    };
  }

  async dailyCost(query: DailyCostQuery = {}): Promise<DailyCostRow[]> {
    const { since, until } = dailyCostWindow(query);
    const byWorkflow = query.workflow_name === undefined ? '' : 'AND workflow_name = ?';
    const sql = `SELECT substr(created_at, 1, 10) AS day, workflow_name, count(*) AS calls,
      coalesce(sum(cost_usd), 0) AS cost_usd, sum(cost_usd IS NULL) AS unpriced_calls
      FROM calls WHERE created_at >= ? AND created_at < ? ${byWorkflow} GROUP BY day, workflow_name`;
    const params: SQLInputValue[] =
      query.workflow_name === undefined ? [since, until] : [since, until, query.workflow_name];
    const rows = this.#statement(sql).all(...params) as Array<{
      day: string;
      workflow_name: string | null;
      calls: number;
      cost_usd: number;
      unpriced_calls: number;
    }>;
    return rows
      .map((row) => ({
        day: row.day,
        workflow_name: row.workflow_name,
        calls: row.calls,
        cost_usd: roundUsd(row.cost_usd),
        unpriced_calls: row.unpriced_calls,
      }))
      .sort(compareDailyCostRows);
  }

  async agents(): Promise<AgentSummary[]> {
    const sql = `SELECT agent_id, count(*) AS calls, sum(status = 'error') AS errors,
      sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
      sum(reasoning_tokens) AS reasoning_tokens, coalesce(sum(cost_usd), 0) AS cost_usd,
      sum(cost_usd IS NULL) AS unpriced_calls, max(created_at) AS last_call_at
      FROM calls GROUP BY agent_id`;
    const rows = this.#statement(sql).all() as unknown as AgentSummary[];
    return rows.map((row) => ({ ...row, cost_usd: roundUsd(row.cost_usd) })).sort(compareAgentSummaries);
  }

  /** Prepared each time: the caller chooses the statement's shape, and a cache of them would grow with its choices. */
  async queryCalls(query: CallQuery, options?: CallQueryOptions): Promise<CallQueryResult> {
    const parsed = parseCallQuery(query, options);
    const { sql, params } = compileCallQuery(parsed, SQLITE);
    return resultOf(this.#db.prepare(sql).all(...(params as SQLInputValue[])), parsed);
  }

  /** Prepared once per distinct SQL text; the list query has at most a few dozen filter combinations. */
  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}

/**
 * SQLite result codes (the low byte of the extended code) of the database failing as a whole: busy, locked, out of
 * memory, read-only, I/O error, corrupt, full, cannot open, not a database. Retrying row by row cannot help those.
 */
const STORAGE_ERRORS = new Set([5, 6, 7, 8, 10, 11, 13, 14, 26]);

function isStorageError(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && STORAGE_ERRORS.has(code & 0xff);
}

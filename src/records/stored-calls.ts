import { loadZod } from '../internal/load-zod.ts';
import { LONGEST_QUERY_MS, prepare, type RunOptions, type StorageEngine } from '../storage/engine.ts';
import { anyOf, asBytes, atMost } from '../storage/engine-sql.ts';
import type { Builder } from '../storage/kysely.ts';
import { isStorageFailure } from '../storage/storage-failure.ts';
import { writeRows } from '../storage/write-rows.ts';
import { type CallQuery, type CallQueryOptions, type CallQueryResult, parseCallQuery } from './call-query.ts';
import { resultOf } from './call-query-rows.ts';
import type { CallRecord } from './call-record.ts';
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
} from './call-store.ts';
import {
  LIST_EQUALITIES,
  normalizeListQuery,
  parsedPage,
  recordTexts,
  type SizedRow,
  sizedPage,
  summarizeWorkflow,
  tracesOf,
} from './call-store-queries.ts';
import { agentSummaries, dailyCostRows, timelineTotals } from './call-summaries.ts';
import {
  CALLS_SCHEMA,
  CALLS_TABLE,
  callRow,
  recordOf,
  TIMING_COLUMNS,
  type TimingRow,
  TRACE_COLUMNS,
  timingOfRow,
} from './calls-schema.ts';
import { callQueryOf, scopeConditions } from './compile-call-query.ts';
import { type RecordSink, RecordsRefusedError } from './sink.ts';
import { Turns } from './turns.ts';

/** Summaries over every record (`agents()`) can take seconds on a large PostgreSQL table. */
const SUMMARY: RunOptions = { timeoutMs: LONGEST_QUERY_MS };
/** A batch of large records can take seconds to send: not the engine's fail-fast bound for a lookup. */
const BATCH: RunOptions = SUMMARY;

const byId = prepare<{ record: unknown }>((db, arg) =>
  db.selectFrom('calls').select('record').where('id', '=', arg('id')),
);
const bounded = prepare<{ record: unknown }>((db, arg) =>
  db
    .selectFrom('calls')
    .select((eb) =>
      eb
        .case()
        .when(eb.fn('octet_length', [eb.ref('record')]), '<=', arg('max'))
        .then(eb.ref('record'))
        .end()
        .as('record'),
    )
    .where('id', '=', arg('id')),
);
const ofTrace = prepare<{ record: unknown }>((db, arg) =>
  db.selectFrom('calls').select('record').where('trace_id', '=', arg('trace')).orderBy('created_at').orderBy('id'),
);
const recentTraced = prepare<TraceSummary>((db) =>
  db
    .selectFrom('calls')
    .select([...TRACE_COLUMNS])
    .where('trace_id', 'is not', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(atMost(RECENT_TRACE_CALLS)),
);

/**
 * Call records in a table of any engine (memory, SQLite, PostgreSQL), and the call-store queries over them: one
 * implementation, written once. `MemorySink`, `SqliteSink` and `PostgresSink` are this store on their engine.
 */
export class StoredCalls implements RecordSink, CallStore {
  /** The database the records are in: the other stores of the same database open on it (`openStores`). */
  readonly engine: StorageEngine;
  /** Pages' records are read a batch per turn of the event loop, every page of every caller (`Turns`). */
  readonly #turns = new Turns();

  constructor(engine: StorageEngine) {
    this.engine = engine;
    engine.migrateNow?.(CALLS_SCHEMA);
  }

  /** Creates or migrates the table (PostgreSQL: on first use); every other method waits for it. */
  ready(): Promise<void> {
    return this.engine.ready(CALLS_SCHEMA);
  }

  /**
   * One transaction per batch (SQLite: one commit instead of one per row; PostgreSQL: one statement). A row the
   * database refuses (or that cannot be bound) costs that row only: the batch is written again row by row, and the
   * refused rows are reported in a `RecordsRefusedError`. A failure of the store itself (unreachable, disk full)
   * fails the batch with its own error: row by row cannot help.
   */
  async write(records: CallRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.ready();
    const { kind } = this.engine;
    try {
      const rows = records.map((record) => callRow(kind, record));
      await this.engine.transaction((tx) => writeRows(tx, CALLS_TABLE, rows, 'replace', BATCH));
      return;
    } catch (error) {
      if (isStorageFailure(error)) throw error;
      if (records.length === 1) throw new RecordsRefusedError(1, 1, error);
    }
    let refused = 0;
    let firstRefusal: unknown;
    for (const record of records) {
      try {
        await writeRows(this.engine, CALLS_TABLE, [callRow(kind, record)], 'replace', BATCH);
      } catch (error) {
        if (isStorageFailure(error)) throw error;
        refused += 1;
        firstRefusal ??= error;
      }
    }
    if (refused > 0) throw new RecordsRefusedError(refused, records.length, firstRefusal);
  }

  close(): Promise<void> | void {
    return this.engine.close();
  }

  async get(id: string): Promise<CallRecord | null> {
    const [row] = await this.#rows<{ record: unknown }>(byId, { id });
    return row ? recordOf(row.record) : null;
  }

  async list(query?: ListCallsQuery, options?: CallQueryOptions): Promise<CallPage> {
    const page = await this.listJson(query, options);
    return parsedPage(page.records, page.next_cursor);
  }

  /** The page's rows and their records' sizes first (no record read), then the records a batch at a time. */
  async listJson(query?: ListCallsQuery, options?: CallQueryOptions): Promise<CallTextPage> {
    const normalized = normalizeListQuery(query);
    const scope = options?.scope;
    await this.ready();
    const { kind } = this.engine;
    const page = (db: Builder) => {
      let select = db
        .selectFrom('calls')
        .select((eb) => ['id', 'created_at', eb.fn<number>('octet_length', [eb.ref('record')]).as('bytes')]);
      for (const column of LIST_EQUALITIES) {
        const value = normalized[column];
        if (value !== undefined) select = select.where(column, '=', value);
      }
      const keys = normalized.api_key_ids;
      if (keys !== undefined) select = select.where((eb) => anyOf(kind, eb, 'api_key_id', keys));
      if (scope && (scope.api_key_ids ?? scope.agent_ids) !== undefined)
        select = select.where((eb) => eb.and(scopeConditions(kind, eb, scope)));
      if (normalized.since !== undefined) select = select.where('created_at', '>=', normalized.since);
      if (normalized.until !== undefined) select = select.where('created_at', '<', normalized.until);
      const after = normalized.after;
      if (after !== undefined)
        select = select.where((eb) =>
          eb.or([
            eb('created_at', '<', after.created_at),
            eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)]),
          ]),
        );
      return select
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(atMost(normalized.limit + 1));
    };
    const sized = await this.#rows<SizedRow>(page);
    const { rows, next_cursor } = sizedPage(sized, normalized.limit);
    const read = (ids: string[]) =>
      this.#turns.run(async () => {
        const found = await this.#rows<{ id: string; record: unknown }>((db) =>
          db
            .selectFrom('calls')
            .select((eb) => ['id', asBytes(kind, eb, 'record').as('record')])
            .where((eb) => anyOf(kind, eb, 'id', ids)),
        );
        // As the store keeps it (SQLite: bytes, decoded nowhere); a record kept as itself (memory), as its JSON.
        return new Map(found.map((row) => [row.id, textOf(row.record)]));
      });
    return { records: recordTexts(rows, read), next_cursor };
  }

  /** The record's size is read from the row (`octet_length`): a larger record is not read, nor sent. */
  async getBounded(id: string, maxBytes: number): Promise<CallRecord | 'too_large' | null> {
    const [row] = await this.#rows<{ record: unknown }>(bounded, { id, max: maxBytes });
    return row ? (row.record === null ? 'too_large' : recordOf(row.record)) : null;
  }

  async workflow(traceId: string): Promise<WorkflowSummary | null> {
    const rows = await this.#rows<{ record: unknown }>(ofTrace, { trace: traceId });
    return summarizeWorkflow(
      traceId,
      rows.map((row) => recordOf(row.record)),
    );
  }

  /** From the columns only: the page never reads a record, however large the records are. */
  async recentTraces(limit: number): Promise<TraceSummary[]> {
    return tracesOf(await this.#rows<TraceSummary>(recentTraced), limit);
  }

  /** The first `limit` calls from their columns, and the totals over all of them from aggregates. */
  async workflowTimeline(traceId: string, limit: number): Promise<WorkflowTimeline | null> {
    const timings = (db: Builder) =>
      db
        .selectFrom('calls')
        .select([...TIMING_COLUMNS])
        .where('trace_id', '=', traceId)
        .orderBy('created_at')
        .orderBy('id')
        .limit(atMost(limit));
    const calls = (await this.#rows<TimingRow>(timings)).map(timingOfRow);
    await this.ready();
    return timelineTotals(this.engine, traceId, calls, limit, SUMMARY);
  }

  async dailyCost(query: DailyCostQuery = {}): Promise<DailyCostRow[]> {
    await this.ready();
    return dailyCostRows(this.engine, query, SUMMARY);
  }

  async agents(): Promise<AgentSummary[]> {
    await this.ready();
    return agentSummaries(this.engine, SUMMARY);
  }

  async queryCalls(query: CallQuery, options?: CallQueryOptions): Promise<CallQueryResult> {
    await loadZod();
    const parsed = parseCallQuery(query, options);
    await this.ready();
    return resultOf(await this.#rows((db) => callQueryOf(db, this.engine.kind, parsed)), parsed);
  }

  async #rows<Row>(query: Parameters<StorageEngine['run']>[0], args?: Record<string, unknown>): Promise<Row[]> {
    await this.ready();
    return (await this.engine.run(query, args, SUMMARY)).rows as Row[];
  }
}

function textOf(record: unknown): string | Uint8Array {
  return typeof record === 'string' || record instanceof Uint8Array ? record : JSON.stringify(record);
}

import type { StorageEngine } from '../../storage/engine.ts';
import { anyOf, atMost } from '../../storage/engine-sql.ts';
import type { Builder } from '../../storage/kysely.ts';
import { column, defineSchema, type TableSpec, withColumn } from '../../storage/schema.ts';
import { writeRows } from '../../storage/write-rows.ts';
import type { McpCallOutcome } from './upstream-errors.ts';

/**
 * One tool call through the MCP gateway: who (the key, its tenant), which tool of which server, how long, how it
 * ended and how much went each way. Never the arguments or the result (they may hold anything), never a credential.
 */
export interface McpCallRecord {
  id: string;
  /** When the call began (ISO). */
  started_at: string;
  key_id: string;
  tenant: string;
  server: string;
  /** The tool as the gateway offers it (`<server>__<tool>`). */
  tool: string;
  duration_ms: number;
  outcome: McpCallOutcome;
  /** Why it failed, when it did: the sentence the caller was given. */
  error: string | null;
  request_bytes: number;
  response_bytes: number;
}

export interface McpCallQuery {
  /** Only the calls of these keys (a tenant's); all when absent. */
  keyIds?: ReadonlySet<string> | undefined;
  server?: string | undefined;
  /** Newest first, at most this many. */
  limit: number;
}

/** Times and ids are ordered text: newest first is one byte order in every engine. */
const MCP_CALLS: TableSpec = {
  name: 'mcp_calls',
  columns: {
    id: column.key({ notNull: true }),
    started_at: column.key({ notNull: true }),
    key_id: column.key({ notNull: true }),
    tenant: column.text({ notNull: true }),
    server: column.key({ notNull: true }),
    tool: column.text({ notNull: true }),
    duration_ms: column.integer({ notNull: true }),
    outcome: column.text({ notNull: true }),
    error: column.text(),
    request_bytes: column.integer({ notNull: true }),
    response_bytes: column.integer({ notNull: true }),
  },
  primaryKey: ['id'],
  indexes: [withColumn('by_time', ['started_at', 'id']), withColumn('by_server', ['server', 'started_at', 'id'])],
};

export const MCP_CALLS_SCHEMA = defineSchema({ name: 'mcp_calls', version: 1, tables: [MCP_CALLS] });

/**
 * The MCP gateway's tool-call records, in the server's database beside the call records (SQLite, or PostgreSQL shared
 * by replicas), so every worker and replica lists every call. A record is written after its call has answered, off
 * the caller's path; `flush` waits for those still being written (the gateway's close).
 */
export class McpCallLog {
  readonly #engine: StorageEngine;
  readonly #writing = new Set<Promise<void>>();
  readonly #onError: (error: unknown) => void;

  constructor(engine: StorageEngine, onError: (error: unknown) => void) {
    this.#engine = engine;
    this.#onError = onError;
    engine.migrateNow?.(MCP_CALLS_SCHEMA);
  }

  /** Stores the record; a store that fails is reported (`onError`), never thrown at the call it records. */
  add(record: McpCallRecord): void {
    const writing = this.#write(record).catch(this.#onError);
    this.#writing.add(writing);
    void writing.finally(() => this.#writing.delete(writing));
  }

  /** Newest first; this process's records still being written are waited for (another's may not be in yet). */
  async list(query: McpCallQuery): Promise<McpCallRecord[]> {
    await this.flush();
    await this.#engine.ready(MCP_CALLS_SCHEMA);
    const { kind } = this.#engine;
    const newest = (db: Builder) => {
      let select = db.selectFrom('mcp_calls').selectAll();
      if (query.keyIds) select = select.where((eb) => anyOf(kind, eb, 'key_id', [...query.keyIds!]));
      if (query.server !== undefined) select = select.where('server', '=', query.server);
      return select.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(atMost(query.limit));
    };
    const { rows } = await this.#engine.run<McpCallRecord>(newest);
    // PostgreSQL's integers may come back as text (pg reads int8 so): numbers, as they were recorded.
    return rows.map((row) => ({
      ...row,
      duration_ms: Number(row.duration_ms),
      request_bytes: Number(row.request_bytes),
      response_bytes: Number(row.response_bytes),
    }));
  }

  /** Resolves once every record added so far is stored (or reported as failed). */
  async flush(): Promise<void> {
    await Promise.all([...this.#writing]);
  }

  async #write(record: McpCallRecord): Promise<void> {
    await this.#engine.ready(MCP_CALLS_SCHEMA);
    await writeRows(this.#engine, MCP_CALLS, [{ ...record }], 'ignore');
  }
}

import type { McpCallOutcome } from './upstream.ts';

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

/**
 * Where tool-call records are kept. Today in memory (the newest `capacity`) beside the server log's line for each;
 * an interface of its own so that it can move onto the storage layer without its callers changing.
 */
export interface McpCallLog {
  add(record: McpCallRecord): void;
  list(query: McpCallQuery): McpCallRecord[];
}

/** The newest records in memory: a ring of `capacity`, the oldest forgotten first. */
export class MemoryMcpCallLog implements McpCallLog {
  readonly #records: McpCallRecord[] = [];
  readonly #capacity: number;

  constructor(capacity = 10_000) {
    this.#capacity = capacity;
  }

  add(record: McpCallRecord): void {
    this.#records.push(record);
    if (this.#records.length > this.#capacity) this.#records.splice(0, this.#records.length - this.#capacity);
  }

  list(query: McpCallQuery): McpCallRecord[] {
    const found: McpCallRecord[] = [];
    for (let index = this.#records.length - 1; index >= 0 && found.length < query.limit; index--) {
      const record = this.#records[index]!;
      if (query.keyIds && !query.keyIds.has(record.key_id)) continue;
      if (query.server !== undefined && record.server !== query.server) continue;
      found.push(record);
    }
    return found;
  }
}

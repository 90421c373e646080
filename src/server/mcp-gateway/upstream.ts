import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { headerCredentials, urlCredentials } from '../../internal/redact.ts';
import { boundedFetch, cutMark } from './bounded-fetch.ts';
import { explainFailure, McpUpstreamError, tooLarge } from './upstream-errors.ts';
import {
  DEFAULT_MCP_LISTING_WAIT_MS,
  DEFAULT_MCP_MAX_RESULT_BYTES,
  DEFAULT_MCP_TIMEOUT_MS,
  DEFAULT_MCP_TOOLS_TTL_MS,
  type McpUpstreamSettings,
} from './upstream-settings.ts';

/** Tools an upstream lists, read page by page up to this many (a bound on what one server can make us hold). */
const MAX_TOOLS = 1_000;
/** Pages of a listing asked for at most, and the longest cursor taken (an opaque token, not a payload). */
const MAX_PAGES = 100;
const MAX_CURSOR = 4096;
/** After a failed connection, listings skip the server this long (answering from the last list, if any). */
const LISTING_BACKOFF_MS = 5_000;
/** Room for the JSON-RPC envelope around a result, in the transport's own bound. */
const ENVELOPE_BYTES = 64 * 1024;
const HOLD_GRACE_MS = 5_000;
/** The MCP SDK's own stdio buffer (`STDIO_DEFAULT_MAX_BUFFER_SIZE`). */
const STDIO_BUFFER_BYTES = 10 * 1024 * 1024;

/**
 * One upstream MCP server, one pooled client: connected on first use, connected again after it fails or closes, each
 * request under the server's deadline. Its tool list is cached for `toolsTtlMs` (forgotten on `tools/list_changed`).
 */
export class McpUpstream {
  readonly name: string;
  readonly #settings: McpUpstreamSettings;
  readonly #timeoutMs: number;
  readonly #maxResultBytes: number;
  readonly #listingWaitMs: number;
  #client: Promise<Client> | undefined;
  #live: Client | undefined;
  #tools: { list: Tool[]; until: number } | undefined;
  #listingBackoffUntil = 0;
  #refreshing: { listed: Promise<Tool[] | undefined>; waitUntil: number } | undefined;
  #closed = false;
  /** Aborted by `close`: a connection under way stops at once rather than at its deadline. */
  readonly #closing = new AbortController();
  /** Its own credentials (header values, env values), cut from any error text it passes on. */
  readonly #secrets: string[];
  /** Marks the error a too-large event stream is ended with (bounded-fetch.ts). */
  readonly #cutMark = cutMark();

  constructor(settings: McpUpstreamSettings) {
    this.name = settings.name;
    this.#settings = settings;
    this.#timeoutMs = settings.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
    this.#maxResultBytes = settings.maxResultBytes ?? DEFAULT_MCP_MAX_RESULT_BYTES;
    this.#listingWaitMs = settings.listingWaitMs ?? DEFAULT_MCP_LISTING_WAIT_MS;
    // A header's token alone too (an upstream's refusal may quote it), and the URL's own credentials.
    this.#secrets = [
      ...Object.values(settings.headers ?? {}).flatMap(headerCredentials),
      ...Object.values(settings.env ?? {}),
      ...urlCredentials(settings.url),
    ];
  }

  /**
   * Its tools: the cached list while fresh; else asked (once, however many listings want it) and, meanwhile, the last
   * list it gave. A server that never gave one is waited for until `listingWaitMs` after the
   * asking began, by every listing together; past that, listings go on without it (`undefined`) while the asking
   * goes on under its deadline. A slow server never holds up the others' tools for longer.
   */
  async tools(): Promise<Tool[] | undefined> {
    if (this.#tools && this.#tools.until > performance.now()) return this.#tools.list;
    if (performance.now() < this.#listingBackoffUntil) return this.#tools?.list;
    // Not the deadline: an asking that connects first takes up to two of them.
    const waitUntil = performance.now() + this.#listingWaitMs;
    this.#refreshing ??= { listed: this.#refresh().finally(() => (this.#refreshing = undefined)), waitUntil };
    if (this.#tools) return this.#tools.list;
    const { listed } = this.#refreshing;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const remaining = this.#refreshing.waitUntil - performance.now();
    const waited = new Promise<undefined>(
      (resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, remaining))),
    );
    try {
      return await Promise.race([listed, waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #refresh(): Promise<Tool[] | undefined> {
    try {
      const list: Tool[] = [];
      const names = new Set<string>();
      const cursors = new Set<string>();
      let cursor: string | undefined;
      // A server's listing is taken as it comes, within bounds: a tool named twice once, and no page asked for again
      // (a page that adds no tool, a cursor that repeats or is longer than a cursor needs, ends it; 100 pages at
      // most), so a server cannot loop the gateway.
      for (let pages = 0; pages < MAX_PAGES && list.length < MAX_TOOLS; pages++) {
        const page = await this.#withClient((client) =>
          client.listTools(cursor === undefined ? {} : { cursor }, { timeout: this.#timeoutMs }),
        );
        const before = list.length;
        for (const tool of page.tools) {
          if (list.length >= MAX_TOOLS || names.has(tool.name)) continue;
          names.add(tool.name);
          list.push(tool);
        }
        cursor = page.nextCursor;
        if (cursor === undefined || list.length === before || cursor.length > MAX_CURSOR || cursors.has(cursor)) break;
        cursors.add(cursor);
      }
      const ttl = this.#settings.toolsTtlMs ?? DEFAULT_MCP_TOOLS_TTL_MS;
      this.#tools = { list, until: performance.now() + ttl };
      return list;
    } catch {
      this.#listingBackoffUntil = performance.now() + LISTING_BACKOFF_MS;
      return this.#tools?.list;
    }
  }

  /**
   * Calls its tool `tool` with `args`: the result as the server gave it (an `isError` result is the tool's own
   * failure), or an `McpUpstreamError` for a server down, slow past the deadline, failing, or answering too much.
   */
  async call(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    let result: CallToolResult;
    const options = { timeout: this.#timeoutMs, maxTotalTimeout: this.#timeoutMs, ...(signal ? { signal } : {}) };
    const send = () =>
      this.#withClient((client) => client.callTool({ name: tool, arguments: args }, undefined, options));
    try {
      // A session the server forgot was never sent the call: sent once more, on a new session.
      result = (await send().catch((error: unknown) =>
        sessionLost(error) ? send() : Promise.reject(error),
      )) as CallToolResult;
    } catch (error) {
      throw signal?.aborted
        ? new McpUpstreamError('cancelled', 'The caller left before the answer.')
        : this.#explain(error);
    }
    if (Buffer.byteLength(JSON.stringify(result)) > this.#maxResultBytes) throw this.#tooLarge();
    return result;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    const client = this.#client;
    this.#client = undefined;
    this.#live = undefined;
    await (await client?.catch(() => undefined))?.close();
  }

  /**
   * `use` of the pooled client; a session the server says it does not know (HTTP 404: it restarted, or expired it)
   * drops the client, so that the next use starts a new session: an HTTP client is never closed by a 404.
   */
  async #withClient<T>(use: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.#connected();
    try {
      return await use(client);
    } catch (error) {
      if (sessionLost(error) && this.#live === client) {
        this.#live = undefined;
        this.#client = undefined;
        void client.close().catch(() => {});
      }
      throw error;
    }
  }

  /** The pooled client, connecting it (under the deadline) when there is none; a failed one is dropped. */
  #connected(): Promise<Client> {
    if (this.#closed) return Promise.reject(new Error('the gateway is closing'));
    const pending = (this.#client ??= this.#connect());
    pending.then(
      (client) => {
        if (this.#client === pending) this.#live = client;
      },
      () => {
        if (this.#client === pending) this.#client = undefined;
      },
    );
    return pending;
  }

  async #connect(): Promise<Client> {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { ToolListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const client = new Client({ name: 'switchyard-mcp-gateway', version: '1.0.0' });
    // Closed (the process exited, the session ended): the next use connects again.
    client.onclose = () => {
      if (this.#live !== client) return;
      this.#live = undefined;
      this.#client = undefined;
    };
    client.onerror = () => {};
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.#tools = undefined;
    });
    const transport = await this.#transport();
    const deadline = AbortSignal.any([AbortSignal.timeout(this.#timeoutMs), this.#closing.signal]);
    try {
      await client.connect(transport, { timeout: this.#timeoutMs, signal: deadline });
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    }
    // Closed meanwhile: the teardown is not left with a process it cannot see.
    if (this.#closed) {
      await client.close().catch(() => {});
      throw new Error('the gateway is closing');
    }
    return client;
  }

  async #transport() {
    const settings = this.#settings;
    if (settings.url !== undefined) {
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      return new StreamableHTTPClientTransport(new URL(settings.url), {
        requestInit: { headers: { ...settings.headers } },
        // A request outlives its deadline only by the time the answer takes to be read.
        fetch: boundedFetch(2 * this.#maxResultBytes + ENVELOPE_BYTES, this.#timeoutMs + HOLD_GRACE_MS, this.#cutMark),
      });
    }
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    return new StdioClientTransport({
      command: settings.command!,
      args: settings.args ?? [],
      ...(settings.env ? { env: settings.env } : {}),
      ...(settings.cwd ? { cwd: settings.cwd } : {}),
      // Its own log is not the gateway's: not mixed into the server's JSON lines.
      stderr: 'ignore',
      // Past its buffer the SDK ends the process (every call on it fails): the SDK's 10 MB, or the server's bound as
      // over HTTP when larger; an answer between the bound and the buffer is refused as too large, the process kept.
      maxBufferSize: Math.max(STDIO_BUFFER_BYTES, 2 * this.#maxResultBytes + ENVELOPE_BYTES),
    });
  }

  #tooLarge(): McpUpstreamError {
    return tooLarge(this.name, this.#maxResultBytes);
  }

  #explain(error: unknown): McpUpstreamError {
    const failure = { server: this.name, timeoutMs: this.#timeoutMs, maxResultBytes: this.#maxResultBytes };
    return explainFailure(error, { ...failure, cutMark: this.#cutMark, secrets: this.#secrets });
  }
}

/**
 * Streamable HTTP's answer to a session id the server does not know: the HTTP status 404 on the POST itself (the SDK's
 * `StreamableHTTPError`), when the call never ran; a JSON-RPC error an upstream codes 404 is its answer, not this.
 */
function sessionLost(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.constructor.name === 'StreamableHTTPError' &&
    (error as { code?: unknown }).code === 404
  );
}

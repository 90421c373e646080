import { randomUUID } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { MCP_TOOL_SEPARATOR, type McpToolKey, mcpServerReachable, mcpToolAllowed } from '../../access/mcp-tools.ts';
import type { McpCallLog, McpCallRecord } from './call-log.ts';
import { McpUpstream } from './upstream.ts';
import { type McpCallOutcome, McpUpstreamError } from './upstream-errors.ts';
import type { McpUpstreamSettings } from './upstream-settings.ts';

/** A key as the gateway reads it: the tool rule's fields, and whom a record names. */
export interface McpCaller extends McpToolKey {
  readonly id: string;
  readonly tenant: string;
}

/** An upstream tool as the gateway offers it. */
export interface GatewayTool {
  /** `<server>__<tool>` */
  name: string;
  server: string;
  /** The upstream's own definition (its name unprefixed). */
  definition: Tool;
}

export interface McpGatewayOptions {
  callLog: McpCallLog;
  /** The server log: a line per call, and what the gateway notices (a tool it cannot offer). */
  log: { info(msg: string, fields?: object): void; warn(msg: string, fields?: object): void };
  /** Each call's server, outcome and seconds, for the metrics. */
  observe?: ((server: string, outcome: McpCallOutcome, seconds: number) => void) | undefined;
}

/** Tool names as MCP clients take them; an upstream's other names are not offered (and said once in the log). */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,80}$/;

/**
 * The upstream MCP servers `serve` offers the tools of at `/mcp`, each under its prefix. Both what a key lists and
 * what it calls go through `mcpToolAllowed` (`src/access/mcp-tools.ts`); every call is recorded.
 */
export class McpGateway {
  readonly #upstreams = new Map<string, McpUpstream>();
  readonly #options: McpGatewayOptions;
  readonly #refusedNames = new Set<string>();

  constructor(upstreams: readonly McpUpstreamSettings[], options: McpGatewayOptions) {
    for (const settings of upstreams) this.#upstreams.set(settings.name, new McpUpstream(settings));
    this.#options = options;
  }

  get callLog(): McpCallLog {
    return this.#options.callLog;
  }

  /** The upstream a gateway tool's name belongs to, and the tool's own name there. */
  locate(name: string): { upstream: McpUpstream; tool: string } | undefined {
    const at = name.indexOf(MCP_TOOL_SEPARATOR);
    const upstream = at > 0 ? this.#upstreams.get(name.slice(0, at)) : undefined;
    return upstream && { upstream, tool: name.slice(at + MCP_TOOL_SEPARATOR.length) };
  }

  /**
   * The tools `key` may list and call, of the servers named (all when absent), asked in parallel; a server that
   * cannot be asked (and never was) is in `unknown`, its tools not listed. No allowed tool: `[]`.
   */
  async toolsFor(key: McpCaller, servers?: ReadonlySet<string>): Promise<{ tools: GatewayTool[]; unknown: string[] }> {
    // A server none of whose tools the key may reach is not asked: its slowness is no concern of this key.
    const asked = [...this.#upstreams.values()].filter(
      (upstream) => (!servers || servers.has(upstream.name)) && mcpServerReachable(key, upstream.name),
    );
    const lists = await Promise.all(asked.map(async (upstream) => ({ upstream, list: await upstream.tools() })));
    const tools: GatewayTool[] = [];
    const unknown: string[] = [];
    for (const { upstream, list } of lists) {
      if (list === undefined) unknown.push(upstream.name);
      for (const definition of list ?? []) {
        const name = `${upstream.name}${MCP_TOOL_SEPARATOR}${definition.name}`;
        if (!this.#offerable(upstream.name, definition.name)) continue;
        if (mcpToolAllowed(key, name)) tools.push({ name, server: upstream.name, definition });
      }
    }
    return { tools, unknown };
  }

  /**
   * Calls the gateway tool `name` for `key` with the gateway's credential for its server, under its deadline, and
   * records the call. A tool the key may not call is refused (and recorded) without reaching the server.
   */
  async call(key: McpCaller, name: string, args: Record<string, unknown>, signal?: AbortSignal) {
    const located = this.locate(name);
    if (!located || !mcpToolAllowed(key, name)) {
      this.refused(key, name);
      throw new Error(`Tool ${name} not found`);
    }
    const started = new Date();
    const start = performance.now();
    let outcome: McpCallOutcome = 'ok';
    let error: string | null = null;
    let result: CallToolResult | undefined;
    try {
      result = await located.upstream.call(located.tool, args, signal);
      if (result.isError === true) outcome = 'tool_error';
      return result;
    } catch (failure) {
      const known = failure instanceof McpUpstreamError;
      outcome = known ? failure.outcome : 'upstream_error';
      error = known ? failure.message : `The MCP server "${located.upstream.name}" failed: ${String(failure)}`;
      throw known ? failure : new Error(error);
    } finally {
      this.#record(key, name, located.upstream.name, started, performance.now() - start, outcome, error, {
        request: byteLength(args),
        response: result ? byteLength(result) : 0,
      });
    }
  }

  /** A call to a tool of a declared server that the key may not call: recorded, never forwarded. */
  refused(key: McpCaller, name: string): void {
    const server = this.locate(name)?.upstream.name;
    if (server === undefined) return;
    this.#record(key, name, server, new Date(), 0, 'forbidden', `This API key may not call ${name}.`, {
      request: 0,
      response: 0,
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.#upstreams.values()].map((upstream) => upstream.close()));
    await this.#options.callLog.flush();
  }

  #offerable(server: string, tool: string): boolean {
    if (TOOL_NAME.test(tool)) return true;
    const key = `${server}/${tool}`;
    if (!this.#refusedNames.has(key) && this.#refusedNames.size < 1_000) {
      this.#refusedNames.add(key);
      this.#options.log.warn('mcp tool not offered: its name is not one MCP clients take', {
        server,
        tool: tool.slice(0, 100),
      });
    }
    return false;
  }

  #record(
    key: McpCaller,
    tool: string,
    server: string,
    started: Date,
    durationMs: number,
    outcome: McpCallOutcome,
    error: string | null,
    bytes: { request: number; response: number },
  ): void {
    const record: McpCallRecord = {
      id: `mcp_${randomUUID().replaceAll('-', '')}`,
      started_at: started.toISOString(),
      key_id: key.id,
      tenant: key.tenant,
      server,
      // The name a caller sent for a refused call: bounded.
      tool: tool.slice(0, 200),
      duration_ms: Math.round(durationMs),
      outcome,
      error,
      request_bytes: bytes.request,
      response_bytes: bytes.response,
    };
    this.#options.callLog.add(record);
    this.#options.log.info('mcp tool call', record);
    this.#options.observe?.(server, outcome, durationMs / 1000);
  }
}

function byteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

import { MCP_SERVER_NAME } from '../../access/mcp-tools.ts';

/**
 * An upstream MCP server the gateway offers the tools of (`serve --config`'s `mcp_servers`, `--mcp-server`):
 * Streamable HTTP at `url` with the gateway's own `headers`, or a `command` the gateway spawns (stdio) with the
 * environment declared here (and only the few variables the MCP SDK passes on: PATH, HOME…).
 */
export interface McpUpstreamSettings {
  /** The prefix of its tools (`<name>__<tool>`): letters, digits, `-` and single `_` inside. */
  name: string;
  url?: string | undefined;
  /** Sent with every request to `url` (the gateway's credential); never the caller's. */
  headers?: Record<string, string> | undefined;
  command?: string | undefined;
  args?: string[] | undefined;
  env?: Record<string, string> | undefined;
  cwd?: string | undefined;
  /** Each call's (and each connection's, each listing's) deadline; default 30 s. */
  timeoutMs?: number | undefined;
  /** A tool result larger than this (as JSON) fails that call; default 1 MiB. */
  maxResultBytes?: number | undefined;
  /** How long its tool list is used before it is asked again; default 60 s (sooner on `tools/list_changed`). */
  toolsTtlMs?: number | undefined;
  /**
   * The longest a tools listing waits for this server's first list (all listings together, a connection included);
   * past it they go on without its tools while the asking goes on under `timeoutMs`. Default 10 s.
   */
  listingWaitMs?: number | undefined;
}

export const DEFAULT_MCP_TIMEOUT_MS = 30_000;
export const DEFAULT_MCP_MAX_RESULT_BYTES = 1024 * 1024;
export const DEFAULT_MCP_TOOLS_TTL_MS = 60_000;
export const DEFAULT_MCP_LISTING_WAIT_MS = 10_000;

/**
 * The upstreams as `serve` starts with them: each name valid and one of a kind (case aside), each with a URL or a
 * command (not both). A problem stops the start, naming the server.
 */
export function checkMcpUpstreams(upstreams: readonly McpUpstreamSettings[]): void {
  const seen = new Set<string>();
  for (const upstream of upstreams) {
    const name = upstream.name;
    if (!MCP_SERVER_NAME.test(name) || name.length > 40)
      throw new Error(
        `MCP server "${name}": a name is 1 to 40 letters, digits, "-" and single "_" (not "__", which separates ` +
          'it from its tools, nor a "_" at either end).',
      );
    const folded = name.toLowerCase();
    if (seen.has(folded)) throw new Error(`MCP server "${name}" is declared twice: its tools' names would collide.`);
    seen.add(folded);
    if ((upstream.url === undefined) === (upstream.command === undefined))
      throw new Error(`MCP server "${name}": give url (Streamable HTTP) or command (stdio), one of them.`);
    if (upstream.url !== undefined && !/^https?:\/\//.test(upstream.url))
      throw new Error(`MCP server "${name}": url must be http:// or https://.`);
    // fetch never sends a URL's user and password, and its error quotes the URL whole (to callers, logs, records).
    if (upstream.url !== undefined && hasCredentials(upstream.url))
      throw new Error(
        `MCP server "${name}": its url holds credentials, which are never sent; give them as bearer_token or headers.`,
      );
    // What a transport would not use is refused, not dropped.
    if (upstream.command !== undefined && upstream.headers !== undefined)
      throw new Error(`MCP server "${name}": headers (and bearer_token) are for a url; a stdio server takes env.`);
    const stdioOnly = (['args', 'env', 'cwd'] as const).filter((field) => upstream[field] !== undefined);
    if (upstream.url !== undefined && stdioOnly.length > 0)
      throw new Error(
        `MCP server "${name}": ${stdioOnly.join(', ')} are a stdio server's; a url is reached over Streamable HTTP.`,
      );
  }
}

function hasCredentials(url: string): boolean {
  try {
    const { username, password } = new URL(url);
    return username !== '' || password !== '';
  } catch {
    return false;
  }
}

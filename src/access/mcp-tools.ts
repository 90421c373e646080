import { isAdminKey } from './lineage.ts';
import { forbidden, type Scope } from './scopes.ts';

/**
 * The MCP tool rule: which upstream MCP servers' tools (`<server>__<tool>` at the gateway's `/mcp`) a key lists and
 * calls. A key's `mcp_tools` names tools (`search__web`), every tool of a server (`github__*`) or every tool (`*`).
 * Unset (`null`), an admin key reaches every tool and any other key none: a tool is reached only where it is named.
 * An empty list, or patterns that match no tool, reach nothing; never "all".
 */

/** Between a server's name and its tool's in the names the gateway offers. */
export const MCP_TOOL_SEPARATOR = '__';

/** What the rule reads of a key. */
export interface McpToolKey {
  readonly mcp_tools?: readonly string[] | null | undefined;
  readonly ancestors: readonly string[];
  readonly scopes: readonly Scope[];
}

/**
 * A server's name as the gateway takes it: letters, digits, `-` and single `_` inside, so that the first `__` of a
 * tool's name always ends its server's name (a name ending in `_` would make `a___x` two tools).
 */
export const MCP_SERVER_NAME = /^[a-z0-9](?:[a-z0-9-]|_(?=[a-z0-9-]))*$/i;

/** Whether `pattern` is one a key may hold: `*`, `<server>__*` or `<server>__<tool>`. */
export function isMcpToolPattern(pattern: string): boolean {
  if (pattern === '*') return true;
  const at = pattern.indexOf(MCP_TOOL_SEPARATOR);
  if (at <= 0) return false;
  const tool = pattern.slice(at + MCP_TOOL_SEPARATOR.length);
  return MCP_SERVER_NAME.test(pattern.slice(0, at)) && tool.length > 0 && (tool === '*' || !tool.includes('*'));
}

/** The patterns a key reaches: its own list, else every tool for an admin key and none for any other. */
export function mcpToolsOf(key: McpToolKey): readonly string[] {
  if (key.mcp_tools) return key.mcp_tools;
  return isAdminKey(key) ? ['*'] : [];
}

/** Whether `pattern` reaches the tool `name` (`<server>__<tool>`). */
function reaches(pattern: string, name: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith(`${MCP_TOOL_SEPARATOR}*`)) return name.startsWith(pattern.slice(0, -1));
  return pattern === name;
}

/** Whether a key may list and call the gateway's tool `name`. */
export function mcpToolAllowed(key: McpToolKey, name: string): boolean {
  return mcpToolsOf(key).some((pattern) => reaches(pattern, name));
}

/** The tools of `names` a key may list and call, in their order; `[]` when none. */
export function allowedMcpTools(key: McpToolKey, names: readonly string[]): string[] {
  const patterns = mcpToolsOf(key);
  return names.filter((name) => patterns.some((pattern) => reaches(pattern, name)));
}

/** Whether a key may reach any tool of the server `server` (its tools need not be asked for otherwise). */
export function mcpServerReachable(key: McpToolKey, server: string): boolean {
  const prefix = `${server}${MCP_TOOL_SEPARATOR}`;
  return mcpToolsOf(key).some((pattern) => pattern === '*' || pattern.startsWith(prefix));
}

/** Whether every tool `inner` reaches, `outer` reaches too. */
function covers(outer: string, inner: string): boolean {
  if (outer === '*') return true;
  if (inner === '*') return false;
  return reaches(outer, inner.endsWith('*') ? inner.slice(0, -1) : inner) && (outer.endsWith('*') || outer === inner);
}

/**
 * The `mcp_tools` of a key `parent` mints: what is asked, each pattern within the parent's own, or none when nothing
 * is asked (a minted key reaches a tool only when it is named for it). A 403 naming the parent's list otherwise.
 */
export function childMcpTools(parent: McpToolKey, asked: readonly string[] | undefined): string[] {
  if (asked === undefined) return [];
  const own = mcpToolsOf(parent);
  const outside = asked.filter((pattern) => !own.some((mine) => covers(mine, pattern)));
  if (outside.length > 0) {
    const list = own.length > 0 ? own.join(', ') : 'none';
    throw forbidden(`a new key cannot reach MCP tools its creator cannot: ${outside.join(', ')} (its own: ${list})`);
  }
  return [...new Set(asked)];
}

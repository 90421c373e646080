import { describe, expect, it } from 'vitest';
import {
  allowedMcpTools,
  childMcpTools,
  isMcpToolPattern,
  MCP_SERVER_NAME,
  mcpServerReachable,
  mcpToolAllowed,
} from '../../src/access/mcp-tools.ts';
import { SCOPES } from '../../src/access/scopes.ts';

/** The MCP tool rule alone: what a key's `mcp_tools` reaches, and what a key it mints may hold. */
const admin = { ancestors: [], scopes: [...SCOPES] };
const limited = (mcp_tools: string[] | null) => ({ ancestors: [], scopes: ['chat' as const], mcp_tools });
const TOOLS = ['github__issues', 'github__prs', 'search__web', 'search__news', 'githubx__issues'];

describe('the MCP tool rule', () => {
  it('reaches every tool for an admin key without a list, and none for any other key without one', () => {
    expect(allowedMcpTools(admin, TOOLS)).toEqual(TOOLS);
    expect(allowedMcpTools(limited(null), TOOLS)).toEqual([]);
    expect(allowedMcpTools({ ...admin, ancestors: ['key_parent'] }, TOOLS)).toEqual([]);
  });

  it('reads names, a server wildcard and the whole wildcard; an empty list is none, never all', () => {
    expect(allowedMcpTools(limited(['search__web']), TOOLS)).toEqual(['search__web']);
    expect(allowedMcpTools(limited(['github__*']), TOOLS)).toEqual(['github__issues', 'github__prs']);
    expect(allowedMcpTools(limited(['*']), TOOLS)).toEqual(TOOLS);
    expect(allowedMcpTools(limited([]), TOOLS)).toEqual([]);
    expect(allowedMcpTools(limited(['nothing__here']), TOOLS)).toEqual([]);
    expect(mcpToolAllowed({ ...admin, mcp_tools: [] }, 'search__web')).toBe(false);
  });

  it('says which servers a key may reach a tool of, so that no other is asked for its tools', () => {
    const key = limited(['search__web', 'github__*']);
    expect(['search', 'github', 'githubx', 'docs'].map((server) => mcpServerReachable(key, server))).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(mcpServerReachable(admin, 'docs')).toBe(true);
    expect(mcpServerReachable(limited([]), 'docs')).toBe(false);
  });

  it('takes only well-formed patterns and server names', () => {
    for (const good of ['*', 'github__*', 'search__web', 'a-b__c.d']) expect(isMcpToolPattern(good), good).toBe(true);
    for (const bad of ['', 'github', 'github*', '__web', 'github__', 'github__w*b', 'gh_ _x__y'])
      expect(isMcpToolPattern(bad), bad).toBe(false);
    for (const bad of ['a__b', 'a_', '_a', 'a b', '']) expect(MCP_SERVER_NAME.test(bad), bad).toBe(false);
  });

  it("keeps a minted key's list within its creator's, naming the creator's list when it is not", () => {
    const team = limited(['github__*', 'search__web']);
    expect(childMcpTools(team, ['github__issues', 'search__web'])).toEqual(['github__issues', 'search__web']);
    expect(childMcpTools(team, ['github__*'])).toEqual(['github__*']);
    expect(childMcpTools(team, undefined)).toEqual([]);
    expect(() => childMcpTools(team, ['search__*'])).toThrow(/search__\*.*its own: github__\*, search__web/);
    expect(() => childMcpTools(team, ['*'])).toThrow(/cannot reach MCP tools/);
    expect(() => childMcpTools(limited(null), ['search__web'])).toThrow(/its own: none/);
    expect(childMcpTools(admin, ['*'])).toEqual(['*']);
  });
});

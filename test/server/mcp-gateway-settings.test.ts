import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolAllowed } from '../../src/access/mcp-tools.ts';
import { loadConfigFile } from '../../src/cli/config-file.ts';
import { ApiKeyStore } from '../../src/server/api-keys.ts';
import { PostgresKeyStore } from '../../src/server/postgres-key-store.ts';
import { startServer } from '../../src/server/start-server.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';

/**
 * The MCP gateway's settings: `mcp_servers` in the config file (secrets from the environment), the names `serve`
 * refuses at start, and a key's `mcp_tools` as the key stores (SQLite, PostgreSQL) and the CLI keep it.
 */
const root = resolve(import.meta.dirname, '../..');
const cli = (args: string[]) =>
  promisify(execFile)(join(root, 'node_modules/.bin/node'), [join(root, 'src/cli.ts'), ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
let dir: string;
const postgres: ThrowawayPostgres | undefined = await startPostgres();
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-mcp-settings-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await postgres?.stop();
});

describe('mcp_servers in the config file', () => {
  it('reads URL servers with their headers and stdio commands with their env, secrets from the environment', () => {
    const file = join(dir, 'switchyard.yaml');
    writeFileSync(
      file,
      `mcp_servers:
  github:
    url: https://mcp.example.com/mcp
    bearer_token: { env: GITHUB_MCP_TOKEN }
    headers: { x-team: { env: TEAM } }
    timeout_ms: 5000
    max_result_bytes: 65536
    tools_ttl_ms: 30000
    listing_wait_ms: 2000
  files:
    command: node
    args: [server.js]
    env: { FILES_TOKEN: { env: FILES_TOKEN } }
    cwd: tools
`,
      { mode: 0o600 },
    );
    const env = { GITHUB_MCP_TOKEN: 'ghp-test', TEAM: 'platform', FILES_TOKEN: 'files-test' };
    expect(loadConfigFile(file, env).mcpServer).toEqual([
      {
        name: 'github',
        url: 'https://mcp.example.com/mcp',
        headers: { 'x-team': 'platform', authorization: 'Bearer ghp-test' },
        timeoutMs: 5000,
        maxResultBytes: 65536,
        toolsTtlMs: 30000,
        listingWaitMs: 2000,
      },
      {
        name: 'files',
        command: 'node',
        args: ['server.js'],
        env: { FILES_TOKEN: 'files-test' },
        cwd: join(dir, 'tools'),
      },
    ]);
    expect(() => loadConfigFile(file, { TEAM: 'x', FILES_TOKEN: 'y' })).toThrow(
      'mcp_servers.github.bearer_token names the environment variable GITHUB_MCP_TOKEN, which is not set',
    );
    writeFileSync(file, 'mcp_servers:\n  github:\n    url: https://x\n    token: nope\n');
    expect(() => loadConfigFile(file, {})).toThrow('mcp_servers.github.token: unknown key');
  });

  it('refuses at start a name with "__", two servers of one name, and a server with no url or command', async () => {
    const start = (mcpServers: Array<{ name: string; url?: string; command?: string }>) =>
      startServer({ mock: true, port: 0, dataDir: join(dir, 'data'), log: () => {}, mcpServers });
    await expect(start([{ name: 'git__hub', url: 'http://127.0.0.1:1/mcp' }])).rejects.toThrow(/"git__hub": a name/);
    await expect(
      start([
        { name: 'search', url: 'http://127.0.0.1:1/mcp' },
        { name: 'Search', command: 'node' },
      ]),
    ).rejects.toThrow('MCP server "Search" is declared twice');
    await expect(start([{ name: 'empty' }])).rejects.toThrow('give url (Streamable HTTP) or command (stdio)');
  });

  it('refuses at start a URL holding credentials (never sent; fetch’s error quotes them), naming none', async () => {
    const start = (mcpServers: Array<Record<string, unknown>>) =>
      startServer({ mock: true, port: 0, dataDir: join(dir, 'data'), log: () => {}, mcpServers: mcpServers as never });
    const refused = await start([{ name: 'gh', url: 'https://x:ghp_SECRET123456@mcp.example/mcp' }]).catch(
      (error: Error) => error,
    );
    expect((refused as Error).message).toMatch(/"gh": .*credentials.*bearer_token/);
    expect((refused as Error).message).not.toContain('ghp_SECRET123456');
    // A transport's settings it would not use: refused, not dropped.
    await expect(start([{ name: 'cli', command: 'node', headers: { authorization: 'Bearer tok' } }])).rejects.toThrow(
      /"cli": .*stdio/,
    );
    await expect(start([{ name: 'web', url: 'https://mcp.example/mcp', env: { A: 'b' } }])).rejects.toThrow(
      /"web": .*Streamable HTTP/,
    );
  });
});

describe('serve --mcp-server and --config', () => {
  it('hands the servers of the flag and of the file to the server, which checks them before it listens', async () => {
    const data = join(dir, 'serve-data');
    const flag = cli(['serve', '--mock', '--port', '0', '--data', data, '--mcp-server', 'git__hub=http://127.0.0.1:1']);
    await expect(flag).rejects.toThrow(/MCP server "git__hub": a name/);
    const file = join(dir, 'doubled.yaml');
    writeFileSync(file, 'mcp_servers:\n  search: { url: http://127.0.0.1:1/mcp }\n  SEARCH: { command: node }\n');
    const config = cli(['serve', '--mock', '--port', '0', '--data', data, '--config', file]);
    await expect(config).rejects.toThrow(/MCP server "SEARCH" is declared twice/);
  });
});

describe("a key's mcp_tools in the key stores", () => {
  it('SQLite: added to a table from before it; old keys keep the default (admin: all, others: none)', async () => {
    const path = join(dir, 'old.sqlite');
    const old = new DatabaseSync(path);
    old.exec(
      'CREATE TABLE api_keys (id TEXT PRIMARY KEY, hash BLOB NOT NULL UNIQUE, prefix TEXT NOT NULL, name TEXT, ' +
        'created_at TEXT NOT NULL, revoked_at TEXT, scopes TEXT, allowed_agents TEXT, allowed_models TEXT, ' +
        'expires_at TEXT, parent_id TEXT)',
    );
    const insert = old.prepare("INSERT INTO api_keys (id, hash, prefix, created_at, scopes) VALUES (?, ?, ?, '', ?)");
    insert.run('key_admin', Buffer.alloc(32, 1), 'sy-admin', null);
    insert.run('key_chat', Buffer.alloc(32, 2), 'sy-chat', '["chat"]');
    old.close();
    const store = new ApiKeyStore(path);
    const made = await store.create('team', {
      grant: { scopes: ['chat'], allowed_agents: null, allowed_models: null, expires_at: null, mcp_tools: ['a__*'] },
    });
    expect(made.info.mcp_tools).toEqual(['a__*']);
    await store.close();
    const reopened = new ApiKeyStore(path);
    const byId = new Map((await reopened.list()).map((key) => [key.id, key]));
    expect(byId.get(made.info.id)!.mcp_tools).toEqual(['a__*']);
    expect(byId.get('key_admin')!.mcp_tools).toBeNull();
    expect(mcpToolAllowed(byId.get('key_admin')!, 'a__x')).toBe(true);
    expect(mcpToolAllowed(byId.get('key_chat')!, 'a__x')).toBe(false);
    expect(await reopened.check(made.key)).toMatchObject({ ok: true, key: { mcp_tools: ['a__*'] } });
    await reopened.close();
  });

  it('the CLI: keys create --mcp-tool, refusing a pattern that is not one', async () => {
    const data = join(dir, 'cli-data');
    await cli(['keys', 'create', '--data', data, '--name', 'web', '--scope', 'chat', '--mcp-tool', 'search__web']);
    const listed = JSON.parse((await cli(['keys', 'list', '--data', data, '--json'])).stdout);
    expect(listed).toEqual([expect.objectContaining({ name: 'web', mcp_tools: ['search__web'] })]);
    await expect(cli(['keys', 'create', '--data', data, '--mcp-tool', 'search'])).rejects.toThrow(
      /expected <server>__<tool>/,
    );
  });

  it.skipIf(!postgres)('PostgreSQL: stored and read back', async () => {
    const store = new PostgresKeyStore(postgres!.url);
    try {
      await store.ready();
      const grant = { scopes: ['chat' as const], allowed_agents: null, allowed_models: null, expires_at: null };
      const made = await store.create('team', { grant: { ...grant, mcp_tools: ['search__web', 'files__*'] } });
      const plain = await store.create('plain', { grant });
      const byId = new Map((await store.list()).map((key) => [key.id, key]));
      expect(byId.get(made.info.id)!.mcp_tools).toEqual(['search__web', 'files__*']);
      expect(byId.get(plain.info.id)!.mcp_tools).toBeNull();
      expect(await store.check(made.key)).toMatchObject({ ok: true, key: { mcp_tools: ['search__web', 'files__*'] } });
    } finally {
      await store.close();
    }
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';
import { type McpUpstreamFake, startMcpUpstream } from '../fake-servers/mcp-upstream.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';

/**
 * The MCP gateway's tool-call records are kept in the server's database, as the call records are: they outlive a
 * restart (SQLite), and replicas (PostgreSQL) — or the workers of `serve --workers` — each list every call, not only
 * the calls they served themselves.
 */
const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres && process.env.CI) throw new Error('PostgreSQL must be installed in CI');
let upstream: McpUpstreamFake;
const dirs: string[] = [];
beforeAll(async () => {
  upstream = await startMcpUpstream({ tools: ['web'] });
});
afterAll(async () => {
  await upstream?.close();
  await postgres?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function serve(options: { dataDir?: string; database?: string } = {}): Promise<RunningServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'switchyard-mcp-calls-'));
  dirs.push(dataDir);
  return startServer({
    mock: true,
    port: 0,
    dataDir,
    ...(options.database ? { database: options.database } : {}),
    log: () => undefined,
    mcpServers: [{ name: 'search', url: upstream.url }],
  });
}

async function callTool(server: RunningServer, key: string, query: string): Promise<void> {
  const client = new Client({ name: 'mcp-calls-stored', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: 'search__web', arguments: { query } });
    expect(result.isError).not.toBe(true);
  } finally {
    await client.close();
  }
}

async function listed(server: RunningServer, key: string): Promise<Array<Record<string, unknown>>> {
  const response = await fetch(`${server.url}/v1/mcp/calls?limit=1000`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Array<Record<string, unknown>> }).data;
}

describe('MCP tool-call records in the database', () => {
  it('SQLite: a call is still listed after the server restarts on the same data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-mcp-calls-'));
    const first = await serve({ dataDir });
    const { key, info } = await first.keys.create('admin');
    await callTool(first, key, 'kept across a restart');
    await first.close();
    const second = await serve({ dataDir });
    try {
      const calls = await listed(second, key);
      expect(calls).toEqual([
        expect.objectContaining({ key_id: info.id, server: 'search', tool: 'search__web', outcome: 'ok' }),
      ]);
      expect(typeof calls[0]!.duration_ms).toBe('number');
      // Never the arguments or the result.
      expect(JSON.stringify(calls)).not.toContain('kept across a restart');
    } finally {
      await second.close();
    }
  });

  it.skipIf(!postgres)('PostgreSQL: a call served by one replica is listed by the other, newest first', async () => {
    const [a, b] = await Promise.all([serve({ database: postgres!.url }), serve({ database: postgres!.url })]);
    try {
      const { key } = await a.keys.create('admin');
      await callTool(a, key, 'first');
      await callTool(b, key, 'second');
      await callTool(a, key, 'third');
      for (const replica of [a, b]) {
        // Each replica writes its record after answering: the other's may still be on its way (call-log.ts).
        const calls = await vi.waitFor(async () => {
          const rows = await listed(replica, key);
          expect(rows).toHaveLength(3);
          return rows;
        });
        const times = calls.map((call) => String(call.started_at));
        expect(times).toEqual([...times].sort().reverse());
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

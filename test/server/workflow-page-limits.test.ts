import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteSink } from '../../src/entries/stores.ts';
import { createGateway } from '../../src/index.ts';
import {
  ApiKeyStore,
  createSwitchyardHandler,
  databasePath,
  defaultHostPolicy,
  type RunningServer,
  startServer,
} from '../../src/server/index.ts';
import { makeRecord } from '../records/make-record.ts';

const dirs: string[] = [];
const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A data directory whose SQLite file already holds `records` (as an earlier version or another process wrote them). */
async function dataDirWith(records: ReturnType<typeof makeRecord>[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-page-'));
  dirs.push(dir);
  const sink = new SqliteSink(databasePath(dir));
  await sink.write(records);
  sink.close();
  return dir;
}

async function serve(dataDir: string): Promise<RunningServer> {
  const server = await startServer({ port: 0, dataDir, mock: true, log: () => undefined });
  servers.push(server);
  return server;
}

describe('the workflow page cannot be broken or stalled by what records hold', () => {
  it('a lone-surrogate trace_id, stored by an older version or sent by a client, still gives a 200 page', async () => {
    const server = await serve(
      await dataDirWith([makeRecord({ trace_id: 'old-\ud800', createdAt: Date.now() - 1000 })]),
    );
    const first = await fetch(`${server.url}/`);
    expect(first.status).toBe(200);
    const link = /href="\/\?trace_id=([^"]+)"/.exec(await first.text())![1]!;
    expect(decodeURIComponent(link)).toBe('old-\ufffd');
    expect(await (await fetch(`${server.url}/?trace_id=${link}`)).text()).toContain('trace <code>old-\ufffd</code>');

    const { key } = await server.keys.create();
    const answer = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      // JSON.stringify writes a lone surrogate as the escape \ud800, which JSON.parse turns back into one.
      body: JSON.stringify({
        model: 'gpt-4o-latest',
        messages: [{ role: 'user', content: 'hi' }],
        metadata: { trace_id: 'new-\ud800' },
      }),
    });
    expect(answer.status).toBe(200);
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('trace <code>new-\ufffd</code>');
  });

  it('is built from columns and aggregates: it never parses a record (every record made unreadable)', async () => {
    const start = Date.now() - 60_000;
    const records = Array.from({ length: 40 }, (_, index) =>
      makeRecord({
        trace_id: 'big',
        agent_id: `agent-${index % 3}`,
        createdAt: start + index * 100,
        latency_ms: 50,
        cost_usd: 0.001,
      }),
    );
    const dir = await dataDirWith(records);
    const db = new DatabaseSync(databasePath(dir));
    db.exec("UPDATE calls SET record = 'not JSON: the page must not need it'");
    db.close();
    const server = await serve(dir);
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page.match(/<rect class="bar/g)).toHaveLength(40);
    expect(page).toContain('40 calls');
    expect(page).toContain('$0.04');
  });

  for (const store of ['memory', 'sqlite'] as const) {
    it(`draws at most 200 calls of a trace, with the totals of all of them (${store})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'switchyard-page-'));
      dirs.push(dir);
      const sinks = store === 'sqlite' ? [new SqliteSink(join(dir, 'calls.sqlite'))] : undefined;
      const gateway = createGateway({ mock: true, ...(sinks ? { records: { sinks } } : {}) });
      for (let index = 0; index < 250; index++) {
        await gateway.createCompletion({
          model: 'gpt-4o-latest',
          messages: [{ role: 'user', content: 'hi' }],
          metadata: { trace_id: 'long', agent_id: `a${index % 2}` },
        });
      }
      const handler = createSwitchyardHandler({
        gateway,
        keys: new ApiKeyStore(':memory:'),
        publicPage: true,
        hostPolicy: defaultHostPolicy('127.0.0.1', 8787),
      });
      const page = await (
        await handler(new Request('http://127.0.0.1:8787/', { headers: { host: '127.0.0.1:8787' } }))
      ).text();
      const whole = (await gateway.calls.workflow('long'))!;
      expect(page.match(/<rect class="bar/g)).toHaveLength(200);
      expect(page).toContain('250 calls (the first 200 drawn)');
      const timeline = (await gateway.calls.workflowTimeline!('long', 200))!;
      expect(timeline).toMatchObject({
        call_count: 250,
        cost_usd: whole.cost_usd,
        agents: whole.agents,
        duration_ms: whole.duration_ms,
        workflow_name: whole.workflow_name,
      });
      expect(timeline.calls.map((call) => call.id)).toEqual(whole.calls.slice(0, 200).map((call) => call.id));
      expect(timeline.calls[0]).not.toHaveProperty('output');
      await gateway.close();
    });
  }
});

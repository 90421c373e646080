import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { type CallRecord, MemorySink, RecordJournal } from '../../src/records/index.ts';
import { ApiKeyStore } from '../../src/server/api-keys.ts';
import { createSwitchyardHandler } from '../../src/server/handler.ts';
import { defaultHostPolicy } from '../../src/server/host-check.ts';

/**
 * Issue 36, item 14: `GET /v1/health` said `degraded` (and counted `failed`) for a minute after a store's outage
 * whose records the journal kept and wrote once the store was back: nothing was lost. A loss the journal could not
 * repair (a record refused, or deleted past the journal's size) still counts.
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-health-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A store that fails as a whole (an outage) while `down`, and keeps what it stores. */
class OutageSink extends MemorySink {
  down = false;
  override async write(records: CallRecord[]): Promise<void> {
    if (this.down) throw new Error('connection refused');
    await super.write(records);
  }
}

function setup(options: { journal: boolean }) {
  const sink = new OutageSink();
  const journal = options.journal ? new RecordJournal({ dir, sinks: [sink], onError: () => {} }) : undefined;
  const gateway = createGateway({
    mock: true,
    records: { sinks: [sink], ...(journal ? { journal } : {}), flushIntervalMs: 600_000, onError: () => {} },
  });
  const handler = createSwitchyardHandler({
    gateway,
    keys: new ApiKeyStore(':memory:'),
    hostPolicy: defaultHostPolicy('127.0.0.1', 8787),
  });
  const health = async () =>
    (await handler(new Request('http://127.0.0.1:8787/v1/health'))).json() as Promise<{
      status: string;
      records: { written: number; failed: number; last_loss_at: string | null };
    }>;
  const call = () => gateway.createCompletion({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  return { sink, gateway, health, call };
}

describe('GET /v1/health and the record journal', () => {
  it('reports no loss for records the journal kept through an outage and wrote after it', async () => {
    const { sink, gateway, health, call } = setup({ journal: true });
    sink.down = true;
    const during = [await call(), await call(), await call()];
    await gateway.flush();
    expect(sink.records()).toEqual([]);
    expect((await health()).records).toMatchObject({ failed: 0, last_loss_at: null });

    sink.down = false;
    await call();
    await gateway.flush();
    const stored = sink.records().map((record) => record.id);
    for (const answer of during) expect(stored).toContain(answer.switchyard.call_id);
    expect(await health()).toMatchObject({ status: 'ok', records: { written: 4, failed: 0, last_loss_at: null } });
    await gateway.close();
  });

  it('still reports the loss without a journal', async () => {
    const { sink, gateway, health, call } = setup({ journal: false });
    sink.down = true;
    await call();
    await gateway.flush();
    expect(await health()).toMatchObject({ status: 'degraded', records: { failed: 1 } });
    await gateway.close();
  });
});

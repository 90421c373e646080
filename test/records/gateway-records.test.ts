import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CallbackSink, MemorySink, SqliteSink } from '../../src/entries/stores.ts';
import { type CallRecord, createGateway, type Gateway, uuidv7 } from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';
import { testCatalog } from '../helpers/test-catalog.ts';

/** A sequential two-agent workflow: a researcher's answer feeds a writer. */
async function runWorkflow(gateway: Gateway, traceId: string) {
  const metadata = { trace_id: traceId, workflow_name: 'weekly-report' };
  const notes = await gateway.createCompletion({
    model: 'gpt-4o-latest',
    messages: [{ role: 'user', content: 'Collect this week’s numbers' }],
    metadata: { ...metadata, agent_id: 'researcher' },
  });
  const stream = await gateway.createCompletion({
    model: 'mistral-large-latest',
    messages: [{ role: 'user', content: `Write the report from: ${notes.choices[0]!.message.content}` }],
    metadata: { ...metadata, agent_id: 'writer' },
    stream: true,
  });
  for await (const _chunk of stream) {
    // drain
  }
  return { notes, stream };
}

describe('call records through the gateway', () => {
  const directories: string[] = [];
  afterAll(() => Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true }))));

  for (const kind of ['memory', 'sqlite'] as const) {
    it(`lists a two-agent workflow and charts its daily cost (${kind})`, async () => {
      const directory = await mkdtemp(join(tmpdir(), 'switchyard-records-'));
      directories.push(directory);
      const sink = kind === 'memory' ? new MemorySink() : new SqliteSink(join(directory, 'calls.sqlite'));
      const gateway = createGateway({ catalog: testCatalog, mock: true, records: { sinks: [sink] } });
      const traceId = uuidv7();
      const { notes, stream } = await runWorkflow(gateway, traceId);
      await gateway.flush();

      expect(notes.switchyard.call_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      expect(notes.switchyard.cost_usd).toBeGreaterThan(0);
      expect(stream.switchyard.cost_usd).toBeGreaterThan(0);

      const workflow = (await gateway.calls.workflow(traceId))!;
      expect(workflow.calls.map((call) => call.agent_id)).toEqual(['researcher', 'writer']);
      expect(workflow.calls[0]!.id).toBe(notes.switchyard.call_id);
      expect(workflow.calls[1]).toMatchObject({
        stream: true,
        status: 'ok',
        model: 'mistral-large-2411',
        provider: 'mock',
      });
      expect(workflow.calls[1]!.time_to_first_token_ms).not.toBeNull();
      expect(workflow.calls[1]!.output?.content).toContain('Write the report');
      expect(workflow.agents.map((agent) => agent.agent_id).sort()).toEqual(['researcher', 'writer']);
      expect(workflow.cost_usd).toBeCloseTo(notes.switchyard.cost_usd! + stream.switchyard.cost_usd!, 9);

      const [today] = await gateway.calls.dailyCost({ workflow_name: 'weekly-report', days: 1 });
      expect(today).toMatchObject({ workflow_name: 'weekly-report', calls: 2 });
      expect(today!.cost_usd).toBeCloseTo(workflow.cost_usd, 9);
      const page = await gateway.calls.list({ workflow_name: 'weekly-report', agent_id: 'writer' });
      expect(page.data).toHaveLength(1);
      await gateway.close();
    });
  }

  it(
    'records failures with their error and attempt chain, and prices the cost of every attempt that produced ' +
      'tokens',
    async () => {
      const records: CallRecord[] = [];
      const mock = createMockProvider({
        replies: [{ error: { status: 429, retry_after_ms: 1 } }, 'ok', { error: { status: 400, message: 'nope' } }],
      });
      const gateway = createGateway({
        catalog: testCatalog,
        mock,
        records: { sinks: [new CallbackSink((record) => void records.push(record))] },
      });
      const ok = await gateway.createCompletion({
        model: 'gpt-4o-latest',
        messages: [{ role: 'user', content: 'hi' }],
      });
      await gateway
        .createCompletion({ model: 'gpt-4o-latest', messages: [{ role: 'user', content: 'hi' }] })
        .catch(() => {});
      await gateway
        .createCompletion({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] })
        .catch(() => {});
      await gateway.flush();

      expect(records.map((record) => record.status)).toEqual(['ok', 'error', 'error']);
      expect(records[0]!.attempts.map((attempt) => attempt.status ?? attempt.outcome)).toEqual([429, 'ok']);
      const usage = ok.usage!;
      expect(records[0]!.cost_usd).toBeCloseTo((usage.prompt_tokens * 2.5 + usage.completion_tokens * 10) / 1e6, 12);
      expect(records[1]!.error).toMatchObject({ status: 400 });
      expect(records[2]).toMatchObject({
        requested_model: 'no-such-model',
        model: null,
        error: { code: 'model_not_found' },
      });
      await expect(gateway.calls.list()).rejects.toThrow(/No call-record sink/);
    },
  );

  it('never blocks a call when the queue is full: the record is dropped and counted', async () => {
    const gateway = createGateway({
      catalog: testCatalog,
      mock: true,
      records: { sinks: [new MemorySink()], maxQueued: 2, flushIntervalMs: 60_000, batchSize: 1000 },
    });
    for (let index = 0; index < 5; index++)
      await gateway.createCompletion({ model: 'gpt-4o-latest', messages: [{ role: 'user', content: `hi ${index}` }] });
    await new Promise((resolve) => setImmediate(resolve));
    expect(gateway.recordStats.dropped).toBe(3);
    await gateway.close();
    expect(gateway.recordStats.written).toBe(2);
  });

  it('redacts contents on request', async () => {
    const sink = new MemorySink();
    const gateway = createGateway({ catalog: testCatalog, mock: true, records: { sinks: [sink], redact: true } });
    await gateway.createCompletion({ model: 'gpt-4o-latest', messages: [{ role: 'user', content: 'my secret plan' }] });
    await gateway.flush();
    const { data } = await gateway.calls.list();
    expect(JSON.stringify(data)).not.toContain('secret plan');
  });
});

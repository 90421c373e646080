import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { databasePath } from '../../src/server/index.ts';
import { MockProvider } from '../../src/testing/index.ts';
import { startTestServer } from './start-test-server.ts';

const messages = [{ role: 'user' as const, content: 'a private prompt about invoices' }];

function storedCalls(dataDir: string, agentId: string): number {
  const db = new DatabaseSync(databasePath(dataDir), { readOnly: true });
  try {
    return (db.prepare('SELECT count(*) AS count FROM calls WHERE agent_id = ?').get(agentId) as { count: number })
      .count;
  } finally {
    db.close();
  }
}

describe('server lifecycle', () => {
  it('on close: stops accepting, lets the in-flight request finish, then flushes its record to SQLite', async () => {
    // The answer waits until the server has been told to close and refuses new connections.
    let answer: () => void = () => undefined;
    const answerable = new Promise<void>((resolve) => (answer = resolve));
    const mock = new MockProvider({
      respond: async () => {
        await answerable;
        return 'slow answer';
      },
    });
    const test = await startTestServer({ mock });
    try {
      const pending = test
        .openai()
        .chat.completions.create({ model: 'gpt-4o-latest', messages, metadata: { agent_id: 'slow' } });
      await expect.poll(() => mock.calls.length).toBe(1);
      const closing = test.server.close();
      await expect(fetch(`${test.url}/v1/models`)).rejects.toThrow();
      answer();
      expect((await pending).choices[0]!.message.content).toBe('slow answer');
      await closing;
      expect(storedCalls(test.dataDir, 'slow')).toBe(1);
      expect(test.logs.at(-1)).toMatchObject({ msg: 'stopped', records_written: 1 });
    } finally {
      await test.stop();
    }
  });

  it('logs one JSON line per request without keys or bodies, and says how to create a first key', async () => {
    const test = await startTestServer();
    try {
      const { data, response } = await test
        .openai()
        .chat.completions.create({ model: 'gpt-4o-latest', messages })
        .withResponse();
      await fetch(`${test.url}/v1/models`);
      const lines = test.logs.filter((line) => line.msg === 'request');
      expect(lines[0]).toEqual({
        time: expect.any(String),
        level: 'info',
        msg: 'request',
        method: 'POST',
        path: '/v1/chat/completions',
        status: 200,
        duration_ms: expect.any(Number),
        call_id: response.headers.get('x-switchyard-call-id'),
      });
      expect(lines[1]).toMatchObject({ method: 'GET', path: '/v1/models', status: 200, call_id: null });
      const text = JSON.stringify(test.logs);
      expect(text).not.toContain(test.key);
      expect(text).not.toContain('invoices');
      expect(text).not.toContain(data.choices[0]!.message.content!);
      expect(test.logs.find((line) => line.msg === 'listening')).toMatchObject({ url: test.url, mock: true });
      expect(test.logs.some((line) => String(line.msg).includes(`switchyard keys create --data ${test.dataDir}`))).toBe(
        true,
      );
      expect(test.logs.some((line) => String(line.msg).includes('simulator'))).toBe(true);
    } finally {
      await test.stop();
    }
  });
});

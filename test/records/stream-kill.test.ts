import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/server/api-keys.ts';
import { databasePath, startServer } from '../../src/server/index.ts';

/**
 * Issue 36, item 14: a stream in flight when `serve` was SIGKILLed left no record at all (the record was built at
 * its end, which never came), though the provider had been paid and the caller had part of the answer. Its record
 * is now journaled when the stream opens (an error, `server_stopped`) and replaced by the real one when it ends; the
 * next start on the same data directory stores what a killed process left. A real `serve` process, killed with
 * SIGKILL, before an OpenAI-shaped provider that sends a few chunks and then holds the stream open.
 */
const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const cli = join(root, 'src/cli.ts');

/** OpenAI's stream framing: `hold` answers two chunks and never ends; otherwise a whole stream with its usage. */
function chunk(delta: Record<string, unknown>, finish: string | null = null, usage?: unknown): string {
  const body = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini-2024-07-18' };
  const choices = usage ? [] : [{ index: 0, delta, finish_reason: finish, logprobs: null }];
  return `data: ${JSON.stringify({ ...body, choices, ...(usage ? { usage } : {}) })}\n\n`;
}
let provider: ReturnType<typeof createServer>;
let providerUrl = '';
const held: ServerResponse[] = [];

let dataDir: string;
let key = '';
beforeAll(async () => {
  provider = createServer((request, response) => {
    let body = '';
    request.on('data', (part) => (body += String(part)));
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chunk({ role: 'assistant', content: '' }));
      response.write(chunk({ content: 'Partial answer' }));
      if (body.includes('hold')) return void held.push(response);
      response.write(chunk({}, 'stop'));
      response.write(chunk({}, null, { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 }));
      response.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((done) => provider.listen(0, '127.0.0.1', done));
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
  dataDir = mkdtempSync(join(tmpdir(), 'switchyard-stream-kill-'));
  const keys = new ApiKeyStore(databasePath(dataDir));
  key = (await keys.create('kill-test')).key;
  keys.close();
});
afterAll(async () => {
  for (const response of held) response.destroy();
  await new Promise((done) => provider.close(done));
  rmSync(dataDir, { recursive: true, force: true });
});

async function startServe(): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const env = { ...process.env, OPENAI_API_KEY: 'sk-test-kill', OPENAI_BASE_URL: providerUrl };
  const child = spawn(node, [cli, 'serve', '--port', '0', '--data', dataDir], { cwd: root, env });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (part: string) => (stderr += part));
  await expect.poll(() => stderr, { timeout: 20_000 }).toContain('"msg":"listening"');
  const listening = stderr.split('\n').find((line) => line.includes('"msg":"listening"'))!;
  return { child, url: (JSON.parse(listening) as { url: string }).url };
}

/**
 * A streamed call; resolves with its call id once `until` is in what was read (or the stream ended). The connection
 * stays open (`release` closes it): a reader cancelled before the kill would be recorded as the caller's abort.
 */
async function stream(url: string, content: string, until: string): Promise<{ id: string; release: () => void }> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content }],
      metadata: { agent_id: 'kill-test', trace_id: 'run-kill' },
    }),
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  let text = '';
  while (!text.includes(until)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  return {
    id: response.headers.get('x-switchyard-call-id')!,
    release: () => void reader.cancel().catch(() => undefined),
  };
}

describe('a stream in flight when the server is SIGKILLed', () => {
  it('leaves a record, stored by the next start; a stream that ended keeps its real one', async () => {
    const { child, url } = await startServe();
    const { id: finished, release } = await stream(url, 'answer in full', 'data: [DONE]');
    release();
    // Stored, and its journal file gone (the route flushes first): only its open record could undo it now.
    const stored = await fetch(`${url}/v1/calls/${finished}`, { headers: { authorization: `Bearer ${key}` } });
    expect(stored.status).toBe(200);
    const held = await stream(url, 'hold the stream open', 'Partial answer');
    const cut = held.id;
    const exited = new Promise((done) => child.on('exit', (_code, signal) => done(signal)));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    held.release();

    const logs: Array<Record<string, unknown>> = [];
    const next = await startServer({ mock: true, port: 0, dataDir, log: (line) => logs.push(line) });
    try {
      await next.gateway.flush();
      const record = await next.gateway.calls.get!(cut);
      expect(record).toMatchObject({
        id: cut,
        status: 'error',
        stream: true,
        agent_id: 'kill-test',
        trace_id: 'run-kill',
        requested_model: 'gpt-4o-mini',
        provider: 'openai',
        error: { type: 'server_error', code: 'server_stopped' },
      });
      expect(JSON.stringify(record!.input_messages)).toContain('hold the stream open');
      expect(await next.gateway.calls.get!(finished)).toMatchObject({
        status: 'ok',
        output: { content: 'Partial answer' },
        usage: { prompt_tokens: 9, completion_tokens: 2 },
      });
    } finally {
      await next.close();
    }
  }, 60_000);
});

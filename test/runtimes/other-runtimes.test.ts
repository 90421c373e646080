import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { type FakeGeminiServer, startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';

/**
 * Real calls from Bun and Deno (issue 38): the package loads there, picks the runtime's `fetch` (Bun's undici has no
 * working `Agent`: every call used to fail with "pool.request is not a function"), and Deno without `--allow-env`
 * works with keys passed in code. Runs when SWITCHYARD_BUN / SWITCHYARD_DENO name the binaries; says so when skipped.
 */
const root = resolve(import.meta.dirname, '../..');
const script = join(import.meta.dirname, 'calls-elsewhere.ts');
const runtimes = [
  { name: 'Bun', binary: process.env.SWITCHYARD_BUN, args: (urls: string[]) => [script, ...urls] },
  {
    name: 'Deno without --allow-env',
    binary: process.env.SWITCHYARD_DENO,
    // Network to the fake servers only: no environment, no file reads beyond the modules, no lock file written.
    args: (urls: string[]) => ['run', '--no-lock', '--allow-net=127.0.0.1', script, ...urls],
  },
];

let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let gemini: FakeGeminiServer;
beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([
    startFakeOpenAIServer(),
    startFakeAnthropicServer(),
    startFakeGeminiServer(),
  ]);
});
afterAll(() => Promise.all([openai?.close(), anthropic?.close(), gemini?.close()]));

for (const runtime of runtimes) {
  if (!runtime.binary)
    console.warn(`other-runtimes.test.ts: ${runtime.name} skipped (set SWITCHYARD_BUN / SWITCHYARD_DENO to run it)`);
  describe.skipIf(!runtime.binary)(`${runtime.name} (${runtime.binary ?? 'binary not given'})`, () => {
    it('makes real calls to OpenAI, Anthropic and Gemini, plain and streamed, with retries and errors', async () => {
      const hello = { content: 'Hi there', usage: { prompt_tokens: 9, completion_tokens: 3 } };
      openai.requests.length = 0;
      openai.enqueue(
        hello,
        hello,
        { error: { status: 429, message: 'Slow down', type: 'rate_limit_error', headers: { 'retry-after': '0' } } },
        hello,
        { error: { status: 400, message: 'Bad temperature', type: 'invalid_request_error', param: 'temperature' } },
      );
      const claude = { content: [{ type: 'text' as const, text: 'Hi there' }] };
      anthropic.enqueue(claude, claude);
      gemini.enqueue({ text: 'Hi there' }, { text: 'Hi there' });

      const { stdout } = await promisify(execFile)(
        runtime.binary!,
        runtime.args([openai.url, anthropic.url, gemini.url]),
        { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, timeout: 60_000 },
      );
      const lines = new Map(
        stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { name: string; text?: string; error?: Record<string, unknown> })
          .map((line) => [line.name, line]),
      );
      for (const name of ['openai', 'openai stream', 'anthropic', 'anthropic stream', 'gemini', 'gemini stream'])
        expect(lines.get(name), name).toEqual({ name, text: 'Hi there' });
      expect(lines.get('openai 429 then an answer')).toEqual({ name: 'openai 429 then an answer', text: 'Hi there' });
      expect(lines.get('openai 400')?.error).toMatchObject({ kind: 'ProviderError', status: 400 });
      expect(String(lines.get('openai 400')?.error?.message)).toContain('Bad temperature');
      // Every call was recorded (to memory: the default, with no file system assumed), under UUIDv7 ids.
      const ids = (lines.get('records') as unknown as { ids: string[] }).ids;
      expect(ids).toHaveLength(8);
      for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // Sent by the runtime's fetch (which asks for compressed answers), not by the pooled dispatcher (which does not).
      expect(openai.requests[0]?.headers['accept-encoding']).toBeDefined();
    }, 90_000);
  });
}

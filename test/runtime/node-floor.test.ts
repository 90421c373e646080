import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_FLOOR } from '../../src/internal/node-floor.ts';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { type FakeGeminiServer, startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';

/**
 * The Node.js floor is true (issue 35): package.json's `engines` is the version real calls run on here, through the
 * fake providers, as the library and as `serve`. CI installs that exact Node.js from npm (`.ci/run`) and gives its
 * binary in SWITCHYARD_FLOOR_NODE, and one below the floor (22.14, where undici 8 cannot load) in
 * SWITCHYARD_BELOW_FLOOR_NODE; outside CI these tests skip when they are not given.
 */
const root = resolve(import.meta.dirname, '../..');
const floorNode = process.env.SWITCHYARD_FLOOR_NODE;
const belowNode = process.env.SWITCHYARD_BELOW_FLOOR_NODE;
const engines = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines;

let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let gemini: FakeGeminiServer;
const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-node-floor-'));
beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([
    startFakeOpenAIServer(),
    startFakeAnthropicServer(),
    startFakeGeminiServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([openai?.close(), anthropic?.close(), gemini?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

const providerEnv = () => ({
  PATH: process.env.PATH ?? '',
  OPENAI_API_KEY: 'sk-floor',
  OPENAI_BASE_URL: openai.url,
  ANTHROPIC_API_KEY: 'sk-ant-floor',
  ANTHROPIC_BASE_URL: anthropic.url,
  GEMINI_API_KEY: 'gemini-floor',
  GEMINI_BASE_URL: gemini.url,
});

/** The package's sources on `node` (types stripped: by default from 22.18 on, behind a flag before). */
const sourceArgs = ['--experimental-strip-types', '--no-warnings', '--conditions=switchyard-source'];

interface Outcome {
  call: string;
  name: string;
  code?: string;
  message?: string;
  content?: string;
}

async function calls(node: string, list: string[]): Promise<Outcome[]> {
  const child = join(root, 'test/helpers/call-child.ts');
  const { stdout } = await promisify(execFile)(node, [...sourceArgs, child, ...list], {
    cwd: root,
    env: providerEnv(),
  });
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Outcome);
}

const version = async (node: string) => (await promisify(execFile)(node, ['--version'])).stdout.trim();

describe('the Node.js floor', () => {
  it('is what package.json says (engines), and what the code checks against', () => {
    expect(engines.node).toBe(`>=${NODE_FLOOR}`);
  });
});

describe.skipIf(!floorNode && !process.env.CI)('real calls on the floor version', () => {
  it('the binary is exactly the floor', async () => {
    expect(floorNode, 'SWITCHYARD_FLOOR_NODE (CI installs it)').toBeDefined();
    expect(await version(floorNode!)).toBe(`v${NODE_FLOOR}`);
  });

  it('answers through OpenAI, Anthropic and Gemini, streamed or not, on either transport', async () => {
    const list = ['gpt-sol-latest', 'claude-sonnet-latest', 'gemini-flash-latest'].flatMap((model) => [
      `${model}:wire`,
      `${model}:wire:stream`,
      `${model}:sdk`,
    ]);
    const outcomes = await calls(floorNode!, list);
    expect(outcomes.map((outcome) => [outcome.call, outcome.name])).toEqual(list.map((call) => [call, 'none']));
    for (const outcome of outcomes) expect(outcome.content, outcome.call).toMatch(/^Hello from fake /);
  });

  it('serves: `switchyard serve` on it answers a chat completion from a provider', async () => {
    const cli = join(root, 'src/cli.ts');
    const env = { ...providerEnv(), HOME: dataDir };
    const key = (
      await promisify(execFile)(floorNode!, [...sourceArgs, cli, 'keys', 'create', '--data', dataDir], { env })
    ).stdout.trim();
    const serve = spawn(floorNode!, [...sourceArgs, cli, 'serve', '--port', '0', '--data', dataDir], { env });
    try {
      let log = '';
      serve.stderr.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
      await expect.poll(() => log, { timeout: 30_000 }).toContain('"msg":"listening"');
      const url = /"msg":"listening","url":"([^"]+)"/.exec(log)![1];
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-sol-latest', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(response.status, log).toBe(200);
      const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
      expect(body.choices[0]!.message.content).toMatch(/^Hello from fake /);
    } finally {
      serve.kill('SIGTERM');
    }
  }, 60_000);

  it('serves: a request pipelined behind a running one ends when its client goes (Node 22 left it open)', async () => {
    const cli = join(root, 'src/cli.ts');
    const env = { ...providerEnv(), HOME: dataDir };
    const key = (
      await promisify(execFile)(floorNode!, [...sourceArgs, cli, 'keys', 'create', '--data', dataDir], { env })
    ).stdout.trim();
    openai.enqueue({ content: 'late', delayMs: 4_000 }, { content: 'late', delayMs: 4_000 });
    const serve = spawn(floorNode!, [...sourceArgs, cli, 'serve', '--port', '0', '--data', dataDir], { env });
    try {
      let log = '';
      serve.stderr.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
      await expect.poll(() => log, { timeout: 30_000 }).toContain('"msg":"listening"');
      const { port } = new URL(/"msg":"listening","url":"([^"]+)"/.exec(log)![1]!);
      const body = JSON.stringify({ model: 'gpt-sol-latest', messages: [{ role: 'user', content: 'hi' }] });
      const head = [
        'POST /v1/chat/completions HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${key}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
      ];
      const post = `${head.join('\r\n')}\r\n\r\n${body}`;
      const seen = openai.requests.length;
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(post + post);
      await expect.poll(() => openai.requests.length, { timeout: 10_000 }).toBeGreaterThan(seen);
      socket.destroy();
      // Both logged as the client's going (499) before the provider answers: the second too, though queued.
      const ended = () => log.match(/"msg":"request","method":"POST","path":"\/v1\/chat\/completions","status":499/g);
      await expect.poll(() => ended()?.length ?? 0, { timeout: 3_000 }).toBe(2);
    } finally {
      serve.kill('SIGTERM');
    }
  }, 60_000);
});

describe.skipIf(!belowNode && !process.env.CI)('below the floor', () => {
  it('a call fails as a local error that names the Node.js version, never as the provider', async () => {
    expect(belowNode, 'SWITCHYARD_BELOW_FLOOR_NODE (CI installs it)').toBeDefined();
    const running = await version(belowNode!);
    const [outcome] = await calls(belowNode!, ['gpt-sol-latest:wire']);
    expect(outcome).toMatchObject({ name: 'InternalError', code: 'internal_error' });
    expect(outcome!.message).toContain(
      `This is Node.js ${running}; switchyard-llm needs Node.js ${NODE_FLOOR} or newer`,
    );
    expect(outcome!.message).not.toContain('sent an answer');
  });

  it('the CLI says so before it starts', async () => {
    const cli = join(root, 'src/cli.ts');
    const failed = await promisify(execFile)(belowNode!, [...sourceArgs, cli, 'models'], { env: providerEnv() }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(new RegExp(`^switchyard: this is Node.js v[\\d.]+; it needs Node.js ${NODE_FLOOR}`));
  });
});

it('the binaries it is given exist', () => {
  for (const binary of [floorNode, belowNode]) if (binary) expect(existsSync(binary), binary).toBe(true);
});

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './start-test-server.ts';

const CHROMIUM = '/usr/bin/chromium';
// Locally a missing Chromium skips this file; in CI (CI set) it must run, and fails without Chromium.
const skip = !existsSync(CHROMIUM) && !process.env.CI;

/** The three SDKs as one browser bundle, on `window.sdks`. */
const ENTRY = `
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
window.sdks = { OpenAI, Anthropic, Client, StreamableHTTPClientTransport };
`;

/**
 * The openai, Anthropic and MCP SDKs in Chromium, on a page of another origin that `corsOrigins` allows: each
 * sends headers of its own (`x-stainless-helper-method`, `anthropic-dangerous-direct-browser-access`,
 * `mcp-protocol-version`), which the preflight must allow.
 */
describe.skipIf(skip)('the browser SDKs through CORS, in Chromium', () => {
  let dir: string;
  let page: Server;
  let origin: string;
  let gateway: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-cors-'));
    const bundle = join(dir, 'sdks.js');
    await build({
      stdin: { contents: ENTRY, resolveDir: process.cwd(), loader: 'js' },
      bundle: true,
      format: 'iife',
      platform: 'browser',
      outfile: bundle,
      logLevel: 'silent',
    });
    const script = readFileSync(bundle);
    page = createServer((request, response) => {
      if (request.url === '/sdks.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      else
        response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><script src="/sdks.js"></script>');
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    gateway = await startTestServer({ corsOrigins: [origin] });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await new Promise((resolve) => page?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `calls` (a function body) in a fresh page of the allowed origin, given `sdks`, `url` and `key`. */
  async function inPage<T>(calls: string): Promise<T> {
    const tab = await browser.newPage();
    try {
      await tab.goto(`${origin}/`);
      await tab.waitForFunction(() => 'sdks' in globalThis);
      return (await tab.evaluate(
        ([body, url, key]) => {
          const run = new Function('sdks', 'url', 'key', `return (async () => { ${body} })();`);
          return run((globalThis as unknown as { sdks: unknown }).sdks, url, key);
        },
        [calls, gateway.url, gateway.key] as const,
      )) as T;
    } finally {
      await tab.close();
    }
  }

  it('runs the openai SDK: a completion, and a stream (x-stainless-helper-method)', async () => {
    const result = await inPage<{ text: string; streamed: string }>(`
      const client = new sdks.OpenAI({
        baseURL: url + '/v1',
        apiKey: key,
        dangerouslyAllowBrowser: true,
        maxRetries: 0,
      });
      const messages = [{ role: 'user', content: 'Hello from the browser' }];
      const completion = await client.chat.completions.create({ model: 'gpt-4o-latest', messages });
      const stream = client.chat.completions.stream({ model: 'gpt-4o-latest', messages });
      const final = await stream.finalChatCompletion();
      return { text: completion.choices[0].message.content, streamed: final.choices[0].message.content };
    `);
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.streamed.length).toBeGreaterThan(0);
  });

  it('runs the Anthropic SDK (anthropic-dangerous-direct-browser-access)', async () => {
    const result = await inPage<{ type: string; text: string }>(`
      const client = new sdks.Anthropic({ baseURL: url, apiKey: key, dangerouslyAllowBrowser: true, maxRetries: 0 });
      const message = await client.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Hello from the browser' }],
      });
      return { type: message.type, text: message.content.find((block) => block.type === 'text').text };
    `);
    expect(result.type).toBe('message');
    expect(result.text.length).toBeGreaterThan(0);
  });

  it('runs the MCP SDK on /mcp (mcp-protocol-version)', async () => {
    const tools = await inPage<string[]>(`
      const client = new sdks.Client({ name: 'browser', version: '1.0.0' });
      const headers = { authorization: 'Bearer ' + key };
      await client.connect(new sdks.StreamableHTTPClientTransport(new URL(url + '/mcp'), { requestInit: { headers } }));
      const { tools } = await client.listTools();
      await client.close();
      return tools.map((tool) => tool.name);
    `);
    expect(tools.length).toBeGreaterThan(0);
  });
});

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

describe('the npm package', () => {
  it('ships the MIT LICENSE that package.json declares', async () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      license: string;
      files: string[];
    };
    expect(manifest.license).toBe('MIT');
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
    expect(manifest.files).toContain('LICENSE');
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
    });
    const [packed] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
    expect(packed!.files.map((file) => file.path)).toContain('LICENSE');
  });
});

/**
 * Runs `program` (an ES module; `process.env.SOURCE` is src/) in a fresh Node.js whose resolve hook collects every
 * module URL it resolves in `resolved`, and returns what the program printed last, parsed.
 */
async function probe(program: string): Promise<unknown> {
  const hooked = `
    import { registerHooks } from 'node:module';
    const resolved = [];
    registerHooks({
      resolve: (specifier, context, next) => {
        const found = next(specifier, context);
        resolved.push(found.url);
        return found;
      },
    });
    ${program}`;
  const { stdout } = await promisify(execFile)(
    join(root, 'node_modules/.bin/node'),
    ['--input-type=module', '-e', hooked],
    { cwd: root, env: { PATH: process.env.PATH, SOURCE: join(root, 'src') } },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

describe('importing the package', () => {
  it('loads none of the provider SDKs (they load when a call needs them)', async () => {
    const program = `
      const { createGateway } = await import(process.env.SOURCE + '/index.ts');
      const atMain = [...resolved];
      await import(process.env.SOURCE + '/server/index.ts');
      createGateway({ env: {} });
      const atImport = [...resolved];
      // The probe sees a dynamic import of one of them: what the check below would catch.
      await import('google-auth-library');
      console.log(JSON.stringify({ atMain, atImport, after: resolved }));`;
    const probed = (await probe(program)) as Record<'atMain' | 'atImport' | 'after', string[]>;
    const { atMain, atImport, after } = probed;
    const cloud = [
      '@aws-sdk/client-bedrock-runtime',
      '@anthropic-ai/vertex-sdk',
      'google-auth-library',
      '@google/genai',
    ];
    const optional = { test: (url: string) => cloud.some((name) => url.includes(`/node_modules/${name}/`)) };
    // Nor the SDKs that are only a transport to choose now (the wire transport is the default).
    const sdks = /\/node_modules\/(openai|@anthropic-ai\/sdk)\//;
    expect(atImport.some((url) => url.endsWith('/src/index.ts'))).toBe(true);
    expect(atImport.filter((url) => optional.test(url) || sdks.test(url))).toEqual([]);
    // The package itself loads the libraries it validates with only when first needed (zod takes ~100 ms alone):
    // issue 27's import time. The server entry may load them.
    expect(atMain.filter((url) => /\/node_modules\/(zod|jsonrepair)\//.test(url))).toEqual([]);
    expect(after.some((url) => optional.test(url))).toBe(true);
  });
});

describe('the main entry', () => {
  it('loads no store or sink of SQLite, PostgreSQL, Redis or files (the memory ones are the defaults)', async () => {
    const program = `
      await import(process.env.SOURCE + '/index.ts');
      console.log(JSON.stringify(resolved));`;
    const resolved = (await probe(program)) as string[];
    const records = /\/src\/records\/(sinks\/(sqlite|postgres|jsonl)|record-journal)/;
    const stores = /\/src\/(cache|annotations|experiments)\/(sqlite|postgres|redis)/;
    expect(resolved.some((url) => url.endsWith('/src/index.ts'))).toBe(true);
    expect(resolved.filter((url) => records.test(url) || stores.test(url))).toEqual([]);
  });
});

describe('a call through the wire transport', () => {
  /**
   * Probe program lines: an OpenAI-style provider answering "hi" (as JSON or as a stream), and a gateway over it
   * making a call (its answer's text in `content`) and a stream (in `streamed`).
   */
  const callsAndStreams = `
      const { createServer } = await import('node:http');
      const provider = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk) => (body += chunk)).on('end', () => {
          const head = { id: 'chatcmpl-1', created: 1, model: 'gpt-4o-mini' };
          if (!JSON.parse(body).stream) {
            response.writeHead(200, { 'content-type': 'application/json' });
            response.end(JSON.stringify({
              ...head, object: 'chat.completion',
              choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
              usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
            }));
            return;
          }
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          const chunk = (delta, finish_reason = null) =>
            'data: ' + JSON.stringify({ ...head, object: 'chat.completion.chunk',
              choices: [{ index: 0, delta, finish_reason }] }) + '\\n\\n';
          response.end(chunk({ role: 'assistant', content: 'hi' }) + chunk({}, 'stop') + 'data: [DONE]\\n\\n');
        });
      });
      await new Promise((listening) => provider.listen(0, '127.0.0.1', listening));
      const { createGateway } = await import(process.env.SOURCE + '/index.ts');
      const baseURL = 'http://127.0.0.1:' + provider.address().port + '/v1';
      const gateway = createGateway({ env: {}, providers: { openai: { apiKey: 'sk-test', baseURL } } });
      const messages = [{ role: 'user', content: 'hi' }];
      const content = (await gateway.createCompletion({ model: 'gpt-4o-mini', messages })).choices[0].message.content;
      let streamed = '';
      for await (const chunk of await gateway.createCompletion({ model: 'gpt-4o-mini', messages, stream: true }))
        streamed += chunk.choices[0]?.delta.content ?? '';
      provider.close();`;

  it("loads undici's agent from its own file, not undici's index (fetch, WebSocket, cache, mocks)", async () => {
    // undici's index loads 109 modules where the agent needs 22: ~3 MB of V8's heap and ~4 MB of a loaded serve's
    // RSS, for nothing (docs/performance.md).
    const program = `
      ${callsAndStreams}
      console.log(JSON.stringify({ content, streamed, resolved }));`;
    const { resolved, ...answers } = (await probe(program)) as {
      content: string;
      streamed: string;
      resolved: string[];
    };
    expect(answers).toEqual({ content: 'hi', streamed: 'hi' });
    const undici = resolved.filter((url) => url.includes('/node_modules/undici/'));
    expect(undici.some((url) => url.endsWith('/lib/dispatcher/agent.js'))).toBe(true);
    expect(undici.filter((url) => url.endsWith('/undici/index.js') || url.includes('/lib/web/'))).toEqual([]);
  });

  // undici's lib/ is not its API: a release may move the agent's file, or close lib/ with an "exports" map.
  it.each([
    ['moved', 'ERR_MODULE_NOT_FOUND'],
    ['closed to importers', 'ERR_PACKAGE_PATH_NOT_EXPORTED'],
  ])("still calls, through undici's index, when undici's own files are %s", async (_, code) => {
    const program = `
      registerHooks({
        resolve: (specifier, context, next) => {
          if (!specifier.startsWith('undici/lib/')) return next(specifier, context);
          throw Object.assign(new Error('not there: ' + specifier), { code: '${code}' });
        },
      });
      ${callsAndStreams}
      console.log(JSON.stringify({ content, streamed, resolved }));`;
    const probed = (await probe(program)) as { content: string; streamed: string; resolved: string[] };
    expect(probed).toMatchObject({ content: 'hi', streamed: 'hi' });
    expect(probed.resolved.some((url) => url.endsWith('/node_modules/undici/index.js'))).toBe(true);
  });
});

describe('starting switchyard serve', () => {
  /** A probe program's first lines: a `serve --mock` started in it, as `server`. */
  const startsServer = `
      const { mkdtempSync, rmSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const { startServer } = await import(process.env.SOURCE + '/server/index.ts');
      const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-start-'));
      process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
      const server = await startServer({ port: 0, dataDir, mock: true, log: () => {} });`;

  it('loads neither zod nor the MCP SDK: the routes that validate with them load them on first use', async () => {
    const program = `${startsServer}
      const models = await fetch(server.url + '/v1/models');
      await server.close();
      console.log(JSON.stringify({ status: models.status, resolved }));`;
    const { status, resolved } = (await probe(program)) as { status: number; resolved: string[] };
    expect(status).toBeGreaterThan(0);
    // zod alone is ~20 MB of a server's memory and ~170 ms of its start (issue 27).
    expect(resolved.filter((url) => /\/node_modules\/(zod|@modelcontextprotocol\/sdk)\//.test(url))).toEqual([]);
  });

  it('loads not Node.js’s own fetch (its built-in undici), which serve never calls', async () => {
    // An ES import of node:http reads every export of it, WebSocket's lazy getter included, which loads Node's
    // built-in undici: ~50 ms of CPU at every start and ~6 MB of an idle serve's RSS, for nothing (serve calls
    // providers through npm undici).
    const program = `${startsServer}
      const { request } = await import('undici');
      const models = await request(server.url + '/v1/models');
      await models.body.text();
      await server.close();
      const builtins = process.moduleLoadList.filter((name) => name.includes('undici'));
      console.log(JSON.stringify({ status: models.statusCode, builtins }));`;
    const { status, builtins } = (await probe(program)) as { status: number; builtins: string[] };
    expect(status).toBe(200);
    expect(builtins).toEqual([]);
  });
});

describe('the optional provider SDKs', () => {
  it('are optionalDependencies, and the build leaves them out of the bundle', async () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      optionalDependencies: Record<string, string>;
    };
    const optional = Object.keys(manifest.optionalDependencies);
    expect(optional).toEqual([
      '@anthropic-ai/sdk',
      '@anthropic-ai/vertex-sdk',
      '@aws-sdk/client-bedrock-runtime',
      '@google/genai',
      'google-auth-library',
      'openai',
    ]);
    expect(optional.filter((name) => name in manifest.dependencies)).toEqual([]);
    // tsup keeps only dependencies and peerDependencies external by itself: the Node build names them; the web build
    // (dist/web) replaces them with modules that fail when loaded.
    const { default: builds } = (await import('../tsup.config.ts')) as {
      default: Array<{ name?: string; external?: string[] }>;
    };
    const { NODE_ONLY_PACKAGES } = await import('../tsup.web.ts');
    const node = builds.find((build) => build.name !== 'web')!;
    expect(optional.filter((name) => !node.external!.includes(name))).toEqual([]);
    expect(optional.filter((name) => !NODE_ONLY_PACKAGES.includes(name))).toEqual([]);
  });
});

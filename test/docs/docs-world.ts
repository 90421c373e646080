import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { exampleFromSchema } from '../../src/structured-output/example-from-schema.ts';
import { startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { type GeminiReply, startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { startFakeOpenAIServer } from '../fake-servers/openai-server.ts';
import { sharedPackage } from '../helpers/built-package.ts';
import type { CodeBlock } from './markdown-blocks.ts';

export const root = resolve(import.meta.dirname, '../..');
export const node = realpathSync(join(root, 'node_modules/.bin/node'));

/**
 * Where the documented examples run: a temporary working directory (with `.switchyard`, the files the docs name, an
 * empty HOME) that is an application with the package installed as npm lays it out (`node_modules/switchyard-llm`,
 * built by the project's tsup config, and its bins in `node_modules/.bin`), so that `npx switchyard-llm` is the real
 * npx running the real CLI; the fake providers behind the usual `<PREFIX>_API_KEY` / `<PREFIX>_BASE_URL`; and a
 * `switchyard serve --mock` on that directory with a key in `SWITCHYARD_API_KEY`. Nothing else is in the environment:
 * no real key, no proxy; every process is loaded with `loopback-only.ts`. `globalInstall` also puts the package's
 * `switchyard` on PATH, as `npm install -g` does (docs/deploy.md's walkthrough installs it so).
 */
export interface DocsWorld {
  dir: string;
  env: Record<string, string>;
  /** `host:port` of the server, which stands for the docs' `127.0.0.1:8787`. */
  server: string;
  close(): Promise<void>;
}

export async function startDocsWorld(
  blocks: CodeBlock[],
  options: { globalInstall?: boolean } = {},
): Promise<DocsWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-docs-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  mkdirSync(join(dir, 'home'));
  for (const block of blocks) {
    if (!block.writeTo) continue;
    mkdirSync(dirname(join(dir, block.writeTo)), { recursive: true });
    writeFileSync(join(dir, block.writeTo), block.code);
  }
  // Built inside the repository, for the package's own dependencies to resolve from its node_modules.
  const built = await sharedPackage();
  const cli = install(dir, built);
  if (options.globalInstall) symlinkSync(cli, join(bin, 'switchyard'));
  // Outside transcripts (whose outputs are compared instead), an HTTP error fails the example, unless the example
  // writes out the status (`-w`) to check it itself, or fails on one itself.
  const curl = findOnPath('curl');
  script(
    bin,
    'curl',
    [
      `[ -n "$DOCS_TRANSCRIPT" ] && exec "${curl}" "$@"`,
      // An example that fails on an HTTP error by itself (`-f`, `--fail`) is left to do so.
      `for arg in "$@"; do case "$arg" in ${CHECKS_ITSELF}) exec "${curl}" "$@" ;; esac; done`,
      `exec "${curl}" --fail-with-body "$@"`,
    ].join('\n'),
  );

  const openai = await startFakeOpenAIServer();
  // A schema-constrained request gets an answer that fits, as a real model's would.
  openai.respondWith = (body) => {
    const format = body.response_format;
    if (format?.type === 'json_schema')
      return { content: JSON.stringify(exampleFromSchema(format.json_schema.schema)) };
    return { content: format?.type === 'json_object' ? '{}' : `Hello from fake ${body.model}` };
  };
  const anthropic = await startFakeAnthropicServer();
  const gemini = await startFakeGeminiServer();
  // Gemini too, for the schema its request carries (`generationConfig.responseJsonSchema`).
  gemini.respondWith = (body) => {
    const schema = body.generationConfig?.responseJsonSchema;
    // Without one, the fake's default hello.
    return (schema ? { text: JSON.stringify(exampleFromSchema(schema)) } : undefined) as GeminiReply;
  };
  const guard = pathToFileURL(join(import.meta.dirname, 'loopback-only.ts')).href;
  const env: Record<string, string> = {
    PATH: [bin, dirname(node), process.env.PATH ?? '/usr/bin:/bin'].join(delimiter),
    HOME: join(dir, 'home'),
    TMPDIR: tmpdir(),
    LANG: 'C.UTF-8',
    // npx as a reader runs it, without npm's own check for a newer npm (the network).
    npm_config_update_notifier: 'false',
    NODE_OPTIONS: `--conditions=switchyard-source --import=${guard}`,
    OPENAI_API_KEY: 'sk-docs-test',
    OPENAI_BASE_URL: openai.url,
    ANTHROPIC_API_KEY: 'sk-ant-docs-test',
    ANTHROPIC_BASE_URL: anthropic.url,
    GEMINI_API_KEY: 'docs-test',
    GEMINI_BASE_URL: gemini.url,
    // The provider of docs/providers.md, "Your own provider", speaks OpenAI's wire format.
    ACME_API_KEY: 'acme-docs-test',
    ACME_BASE_URL: openai.url,
    // The test run's compile cache (vitest.config.ts), which no block reads: the package and npx compiled once.
    ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
  };
  const key = (await promisify(execFile)(node, [cli, 'keys', 'create', '--name', 'docs-test'], { cwd: dir, env }))
    .stdout;
  env.SWITCHYARD_API_KEY = key.trim();
  const serve = spawn(node, [cli, 'serve', '--mock', '--port', '0'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const server = await listeningOn(serve);
  return {
    dir,
    env,
    server,
    async close() {
      serve.kill('SIGTERM');
      if (serve.exitCode === null) await new Promise((done) => serve.once('exit', done));
      await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The built package installed in the application `dir` as npm installs a local package: a link in `node_modules`,
 * its bins linked in `node_modules/.bin`, the dependency in `package.json`. Returns the CLI's path.
 */
function install(dir: string, built: string): string {
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ private: true, dependencies: { 'switchyard-llm': `file:${built}` } }, null, 2)}\n`,
  );
  symlinkSync(built, join(dir, 'node_modules', 'switchyard-llm'));
  const cli = join(built, 'dist', 'cli.js');
  chmodSync(cli, 0o755);
  for (const name of ['switchyard', 'switchyard-llm'])
    symlinkSync(join('..', 'switchyard-llm', 'dist', 'cli.js'), join(dir, 'node_modules', '.bin', name));
  return cli;
}

/** curl options after which an example checks the status itself: `-w`, or `-f` in any cluster of short options. */
const CHECKS_ITSELF = '-w|--write-out|--fail|--fail-with-body|-[!-]*f*';

function script(bin: string, name: string, body: string): void {
  writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
}

function findOnPath(name: string): string {
  const found = (process.env.PATH ?? '/usr/bin:/bin')
    .split(delimiter)
    .map((entry) => join(entry, name))
    .find((path) => existsSync(path));
  if (!found) throw new Error(`The docs test needs ${name} on PATH.`);
  return found;
}

/** The server's `host:port`, from its `listening` log line. */
function listeningOn(serve: ChildProcess): Promise<string> {
  return new Promise((done, fail) => {
    let log = '';
    let found = false;
    const timer = setTimeout(() => fail(new Error(`serve did not start:\n${log}`)), 30_000);
    // Read on after the line too: the request log must never fill the pipe.
    serve.stderr!.on('data', (chunk: Buffer) => {
      if (found) return;
      log += chunk.toString();
      const url = /"msg":"listening","url":"http:\/\/([^"]+)"/.exec(log)?.[1];
      if (url) {
        found = true;
        clearTimeout(timer);
        done(url);
      }
    });
    serve.once('exit', (code) => fail(new Error(`serve exited with ${code}:\n${log}`)));
  });
}

import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { databasePath } from '../../src/server/index.ts';

const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const cli = join(root, 'src/cli.ts');
const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-cli-signals-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** `switchyard serve --mock` as a child process, its stderr gathered. */
async function serve(nodeArgs: string[] = []): Promise<{
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr: () => string;
  exited: Promise<number | null>;
}> {
  const child = spawn(node, [...nodeArgs, cli, 'serve', '--mock', '--port', '0', '--data', dataDir], { cwd: root });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  await expect.poll(() => stderr, { timeout: 15_000 }).toContain('"msg":"listening"');
  const url = (JSON.parse(stderr.split('\n').find((line) => line.includes('"listening"'))!) as { url: string }).url;
  return { child, url, stderr: () => stderr, exited };
}

describe('switchyard serve and signals', () => {
  it('a second SIGTERM stops waiting for in-flight requests, and still writes the completed calls', async () => {
    const key = (
      await promisify(execFile)(node, [cli, 'keys', 'create', '--data', dataDir], { cwd: root })
    ).stdout.trim();
    const server = await serve();
    try {
      for (let index = 0; index < 5; index++) {
        const response = await fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'gpt-4o-latest',
            messages: [{ role: 'user', content: 'hi' }],
            metadata: { agent_id: 'second-signal' },
          }),
        });
        expect(response.status).toBe(200);
      }
      // A request still in flight (its body never ends) keeps the first shutdown waiting for it. The server's
      // "100 Continue" says a route is reading its body.
      const hanging = request(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': '1000',
          expect: '100-continue',
        },
      });
      hanging.on('error', () => undefined);
      const received = new Promise((resolve) => hanging.once('continue', resolve));
      hanging.flushHeaders();
      await received;
      hanging.write('{"model":');
      server.child.kill('SIGTERM');
      await expect.poll(server.stderr).toContain('"msg":"shutting down"');
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(130);
      const db = new DatabaseSync(databasePath(dataDir), { readOnly: true });
      expect(db.prepare("SELECT count(*) AS count FROM calls WHERE agent_id = 'second-signal'").get()).toEqual({
        count: 5,
      });
      db.close();
      expect(server.stderr()).toContain('"msg":"shutting down now"');
      expect(server.stderr()).toContain('"msg":"stopped"');
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('stderr stays JSON lines when the runtime warns (Node 22 warns that SQLite is experimental)', async () => {
    // What Node 22 does when node:sqlite is first loaded; Node 24 no longer warns, so the preload says it instead.
    const preload = join(dataDir, 'warn-like-node-22.mjs');
    writeFileSync(
      preload,
      `
      const load = process.getBuiltinModule.bind(process);
      let warned = false;
      process.getBuiltinModule = (id) => {
        if (!warned && (id === 'node:sqlite' || id === 'sqlite')) {
          warned = true;
          process.emitWarning('SQLite is an experimental feature and might change at any time', 'ExperimentalWarning');
        }
        return load(id);
      };
    `,
    );
    const server = await serve(['--import', pathToFileURL(preload).href]);
    try {
      await fetch(`${server.url}/v1/health`);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      const lines = server.stderr().trim().split('\n');
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      expect(lines.map((line) => JSON.parse(line))).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          warning: 'ExperimentalWarning',
          msg: 'SQLite is an experimental feature and might change at any time',
        }),
      );
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});

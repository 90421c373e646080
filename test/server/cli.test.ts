import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasePath } from '../../src/server/index.ts';
import { makeDeployment } from '../deployments/fixtures.ts';

const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const cli = join(root, 'src/cli.ts');
const run = (...args: string[]) => promisify(execFile)(node, [cli, ...args], { cwd: root });

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'switchyard-cli-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the switchyard CLI', () => {
  it('keys create prints only the key; list and revoke work by prefix', async () => {
    const { stdout } = await run('keys', 'create', '--name', 'ci', '--data', dataDir);
    expect(stdout).toMatch(/^sy-[A-Za-z0-9_-]{43}\n$/);
    const key = stdout.trim();
    const listed = JSON.parse((await run('keys', 'list', '--json', '--data', dataDir)).stdout) as Array<{
      prefix: string;
      name: string;
    }>;
    expect(listed).toEqual([expect.objectContaining({ name: 'ci', prefix: key.slice(0, 11) })]);
    expect(JSON.stringify(listed)).not.toContain(key);
    expect((await run('keys', 'revoke', key.slice(0, 11), '--data', dataDir)).stdout).toContain('Revoked');
  });

  it('models --json parses; models prints the table', async () => {
    const list = JSON.parse((await run('models', '--json', '--reasoning')).stdout) as {
      object: string;
      data: Array<{ supports: { reasoning: boolean } }>;
    };
    expect(list.object).toBe('list');
    expect(list.data.every((model) => model.supports.reasoning)).toBe(true);
    expect((await run('models')).stdout.split('\n')[0]).toMatch(
      /^id\s+maker\s+in\/1M\s+out\/1M\s+context\s+released\s+reasoning\s+deprecated$/,
    );
  });

  it('deployments push, list and get against the data directory; a changed push fails', async () => {
    const deployment = makeDeployment({ agent_id: 'cli-agent', number: 1 });
    const file = join(dataDir, 'deployment.json');
    writeFileSync(file, JSON.stringify(deployment));
    expect((await run('deployments', 'push', file, '--data', dataDir)).stdout).toBe(`Stored ${deployment.id}\n`);
    expect((await run('deployments', 'push', file, '--data', dataDir)).stdout).toBe(`Unchanged ${deployment.id}\n`);
    expect(JSON.parse((await run('deployments', 'get', deployment.id, '--data', dataDir)).stdout)).toEqual(deployment);
    expect((await run('deployments', 'list', '--agent-id', 'cli-agent', '--data', dataDir)).stdout).toContain(
      deployment.id,
    );
    writeFileSync(file, JSON.stringify({ ...deployment, description: 'changed' }));
    await expect(run('deployments', 'push', file, '--data', dataDir)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('already exists'),
    });
  });

  it('deployments with both --deployments and --database is refused, not one of them ignored', async () => {
    for (const database of [
      ['--database', 'postgres://db.example/x'],
      ['--database-url-file', join(dataDir, 'x')],
    ])
      await expect(
        run('deployments', 'list', '--deployments', join(dataDir, 'dir'), ...database, '--data', dataDir),
      ).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining('Give --deployments or --database (--database-url-file), not both'),
      });
  });

  it('has --help on every command', async () => {
    for (const command of [[], ['serve'], ['keys'], ['keys', 'create'], ['models'], ['deployments', 'push']]) {
      expect((await run(...command, '--help')).stdout, command.join(' ')).toMatch(/^Usage: switchyard/);
    }
  });

  it('serve --mock answers, and on SIGTERM drains, flushes records and exits 0', async () => {
    const key = (await run('keys', 'create', '--data', dataDir)).stdout.trim();
    const child = spawn(node, [cli, 'serve', '--mock', '--port', '0', '--data', dataDir], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      await expect.poll(() => stderr, { timeout: 10_000 }).toContain('"msg":"listening"');
      const url = (JSON.parse(stderr.split('\n').find((line) => line.includes('"listening"'))!) as { url: string }).url;
      // The server re-executed itself in the same process with a bounded young generation (docs/serve.md#memory).
      if (existsSync(`/proc/${child.pid}/cmdline`) && process.execve) {
        expect(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0')).toContain('--max-semi-space-size=8');
      }
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'gpt-4o-latest',
          messages: [{ role: 'user', content: 'hi' }],
          metadata: { agent_id: 'cli-serve' },
        }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-switchyard-mock')).toBe('true');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).toContain('"msg":"stopped"');
      expect(stderr).not.toContain(key);
      const db = new DatabaseSync(databasePath(dataDir), { readOnly: true });
      expect(db.prepare("SELECT count(*) AS count FROM calls WHERE agent_id = 'cli-serve'").get()).toEqual({
        count: 1,
      });
      db.close();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it.runIf(existsSync('/proc/self/cmdline') && process.execve)(
    'serve keeps a young-generation size the user chose in NODE_OPTIONS',
    async () => {
      const child = spawn(node, [cli, 'serve', '--mock', '--port', '0', '--data', dataDir], {
        cwd: root,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, NODE_OPTIONS: '--max-semi-space-size=4' },
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      try {
        await expect.poll(() => stderr, { timeout: 10_000 }).toContain('"msg":"listening"');
        expect(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8')).not.toContain('--max-semi-space-size');
      } finally {
        child.kill('SIGKILL');
      }
    },
  );

  it('serve logs where its memory is when SWITCHYARD_DEBUG_MEMORY asks', async () => {
    const child = spawn(node, [cli, 'serve', '--mock', '--port', '0', '--data', dataDir], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, SWITCHYARD_DEBUG_MEMORY: '0.2' },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    try {
      await expect.poll(() => stderr, { timeout: 10_000 }).toContain('"msg":"memory"');
      const line = JSON.parse(stderr.split('\n').find((text) => text.includes('"msg":"memory"'))!);
      expect(line).toMatchObject({ level: 'debug', pid: child.pid, gc: { scavenges: expect.any(Number) } });
      expect(line.rssMb).toBeGreaterThan(line.heapUsedMb);
      expect(line.spaces.new_space.size).toBeGreaterThan(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

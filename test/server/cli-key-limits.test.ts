import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.ts';

/** `switchyard keys create --rpm … --budget …` and `keys update`: the limits stored, shown, enforced by `serve`. */
const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const cli = join(root, 'src/cli.ts');
const run = (...args: string[]) => promisify(execFile)(node, [cli, ...args], { cwd: root });
const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-cli-limits-'));
let server: RunningServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const listed = async () =>
  JSON.parse((await run('keys', 'list', '--json', '--data', dataDir)).stdout) as Array<{
    id: string;
    limits?: unknown;
  }>;

describe('keys create and keys update with limits', () => {
  it('stores the limits, lists them, changes them, refuses a child above its parent', async () => {
    const created = await run(
      ...['keys', 'create', '--name', 'team', '--rpm', '2', '--tpm', '100000', '--max-in-flight', '4'],
      ...['--budget', '5/day', '--budget', '100/month', '--data', dataDir],
    );
    const key = created.stdout.trim();
    const [team] = await listed();
    expect(team!.limits).toEqual({
      requests_per_minute: 2,
      tokens_per_minute: 100_000,
      max_in_flight: 4,
      budgets: ['5/day', '100/month'],
    });
    const table = (await run('keys', 'list', '--data', dataDir)).stdout;
    expect(table).toContain('2 rpm, 100000 tpm, 4 in flight, $5/day, $100/month');
    const twice = await run('keys', 'create', '--budget', '1/day', '--budget', '2/day', '--data', dataDir).catch(
      (error: { stderr: string }) => error,
    );
    expect((twice as { stderr: string }).stderr).toContain('two budgets per day');

    // serve enforces the stored rate: 2 a minute.
    server = await startServer({ mock: true, port: 0, dataDir, log: () => undefined });
    const call = () => fetch(`${server!.url}/v1/deployments`, { headers: { authorization: `Bearer ${key}` } });
    expect([(await call()).status, (await call()).status, (await call()).status]).toEqual([200, 200, 429]);

    // Raised by the CLI while serve runs: the server sees it within a second; the other limits are kept.
    const updated = await run('keys', 'update', team!.id, '--rpm', '100', '--data', dataDir);
    expect(updated.stdout).toContain('100 rpm, 100000 tpm, 4 in flight, $5/day, $100/month');
    await expect.poll(async () => (await call()).status, { timeout: 3_000 }).toBe(200);

    // A child minted by the team key cannot be raised above it by the CLI either.
    // The bucket refills at the new rate (a raise does not fill it at once).
    const mint = () =>
      fetch(`${server!.url}/v1/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: JSON.stringify({ limits: { requests_per_minute: 50 } }),
      });
    let minted = await mint();
    await expect.poll(async () => (minted = await mint()).status, { timeout: 3_000 }).toBe(201);
    expect(minted.status).toBe(201);
    const child = ((await minted.json()) as { id: string }).id;
    const above = await run('keys', 'update', child, '--rpm', '200', '--data', dataDir).catch(
      (error: { stderr: string }) => error,
    );
    expect((above as { stderr: string }).stderr).toContain(
      "requests_per_minute (200) cannot be above its parent's (100)",
    );
    await run('keys', 'update', child, '--clear-limits', '--rpm', '7', '--data', dataDir);
    expect((await listed()).find((each) => each.id === child)!.limits).toEqual({ requests_per_minute: 7 });
  });
});

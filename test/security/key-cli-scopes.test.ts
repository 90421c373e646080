import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/server/key-scopes.ts';
import { cli, node, root } from '../helpers/key-race.ts';

/** `keys create --agent x` (or `--model m`) without `--scope` used to make an admin key limited in name only. */
const run = (...args: string[]) => promisify(execFile)(node, [cli, ...args], { cwd: root });
const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-key-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function scopesOfNewKey(...args: string[]): Promise<string[]> {
  const name = `key-${Math.random()}`;
  await run('keys', 'create', '--name', name, ...args, '--data', dataDir);
  const listed = JSON.parse((await run('keys', 'list', '--json', '--data', dataDir)).stdout) as Array<{
    name: string;
    scopes: string[];
  }>;
  return listed.find((key) => key.name === name)!.scopes;
}

describe('keys create: default scopes', () => {
  it('a key limited to an agent or a model gets chat and models, not admin', async () => {
    expect(await scopesOfNewKey('--agent', 'support')).toEqual(['chat', 'models']);
    expect(await scopesOfNewKey('--model', 'gpt-4o-mini')).toEqual(['chat', 'models']);
  });

  it('--scope still chooses; no limit and no --scope is still an admin key', async () => {
    expect(await scopesOfNewKey('--agent', 'support', '--scope', 'calls:read:own')).toEqual(['calls:read:own']);
    expect(await scopesOfNewKey()).toEqual([...SCOPES]);
  });

  it('--help says so', async () => {
    const help = (await run('keys', 'create', '--help')).stdout.replaceAll(/\s+/g, ' ');
    expect(help).toContain('with --agent or --model, chat and models only');
  });
});

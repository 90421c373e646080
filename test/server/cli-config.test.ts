import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableCores } from '../../src/cli/available-cores.ts';
import { loadConfigFile } from '../../src/cli/config-file.ts';

const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const cli = join(root, 'src/cli.ts');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-config-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const settings = `
rate_limit: 30
budgets: ["agent:10/day"]
cors_origins: [https://app.example.com]
fallbacks: [gpt-4o-mini]
providers:
  openai:
    keys:
      - { api_key: { env: CONFIG_TEST_KEY }, weight: 2 }
      - { api_key: sk-second, base_url: https://eu.example.com/v1 }
catalog:
  - id: support-ft
    base: gpt-4o-mini-2024-07-18
    providers: [{ provider: openai, model: "ft:gpt-4o-mini:acme:support:1" }]
`;

/** Starts `serve --mock` with the arguments; the `configuration` line and the URL once it listens. */
async function serve(...args: string[]) {
  const child = spawn(node, [cli, 'serve', '--mock', '--port', '0', '--data', join(dir, 'data'), ...args], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, CONFIG_TEST_KEY: 'sk-first' },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  await expect.poll(() => stderr, { timeout: 10_000 }).toContain('"msg":"configuration"');
  const line = (msg: string) => JSON.parse(stderr.split('\n').find((text) => text.includes(`"msg":"${msg}"`))!);
  return { child, url: line('listening').url as string, configuration: line('configuration') };
}

describe('switchyard serve --config', () => {
  it('applies the file: catalog rows, limits, budgets and CORS', async () => {
    const file = join(dir, 'switchyard.yaml');
    writeFileSync(file, settings);
    const { child, url, configuration } = await serve('--config', file);
    try {
      expect(configuration.limits.requests_per_minute_per_key).toBe(30);
      expect(configuration.budgets.rules).toEqual([{ scope: 'agent', usd: 10, window: 'day' }]);
      expect(configuration.cors_origins).toEqual(['https://app.example.com']);
      expect((await fetch(`${url}/v1/models/support-ft`)).status).toBe(200);
      const preflight = await fetch(`${url}/v1/chat/completions`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
      });
      expect(preflight.status).toBe(204);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('lets flags override the file, and reads JSON', async () => {
    const file = join(dir, 'switchyard.json');
    writeFileSync(file, JSON.stringify({ rate_limit: 30, cors_origins: ['https://app.example.com'] }));
    const { child, configuration } = await serve('--config', file, '--rate-limit', '7');
    try {
      expect(configuration.limits.requests_per_minute_per_key).toBe(7);
      expect(configuration.cors_origins).toEqual(['https://app.example.com']);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it("sets the gateway's mode from the file or --sensitive-data; keys create --sensitive-data a key's", async () => {
    const file = join(dir, 'guarded.yaml');
    writeFileSync(file, 'sensitive_data: mask\n');
    for (const [args, mode] of [
      [[], 'mask'],
      [['--sensitive-data', 'block'], 'block'],
    ] as const) {
      const { child, url, configuration } = await serve('--config', file, ...args);
      try {
        expect(configuration.guardrails).toEqual({ sensitive_data: mode, custom: [] });
        // Under the file's mask, a key made to block blocks; under --sensitive-data block, any key's call is.
        const keyArgs = mode === 'mask' ? ['--sensitive-data', 'block'] : [];
        const created = [cli, 'keys', 'create', '--data', join(dir, 'data'), ...keyArgs];
        const keys = spawnSync(node, created, { encoding: 'utf8' });
        const refused = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${keys.stdout.trim()}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'mail ann@example.com' }] }),
        });
        expect(refused.status).toBe(400);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('sensitive_data_blocked');
      } finally {
        child.kill('SIGKILL');
      }
    }
  });

  it('refuses an unknown key and a wrong type by their paths, before it starts', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'providers:\n  openai:\n    keys: [{ api_key: a }, { api_key: b, weight: heavy }]\nbogus: 1\n');
    const failed = promisify(execFile)(node, [cli, 'serve', '--mock', '--port', '0', '--config', file], { cwd: root });
    const error = (await failed.catch((caught: unknown) => caught)) as { code: number; stderr: string };
    expect(error.code).toBe(1);
    expect(error.stderr).toContain('providers.openai.keys[1].weight: expected a number');
    expect(error.stderr).toContain('bogus: unknown key');
    expect(error.stderr).not.toContain('"msg":"listening"');
  });

  it('takes a budget of every scope and window, written as an object or as text, and refuses others', () => {
    const file = join(dir, 'budgets.json');
    const scopes = ['trace', 'agent', 'workflow', 'key'];
    const windows = ['minute', 'day', 'month', 'lifetime'];
    const objects = scopes.flatMap((scope) => windows.map((window) => ({ scope, usd: 1, window })));
    writeFileSync(file, JSON.stringify({ budgets: [...objects, 'key:2/day', 'trace:3'] }));
    expect(loadConfigFile(file, {}).budget).toEqual([
      ...objects,
      { scope: 'key', usd: 2, window: 'day' },
      { scope: 'trace', usd: 3, window: 'lifetime' },
    ]);
    for (const [budget, path] of [
      [{ scope: 'team', usd: 1 }, 'budgets[0]'],
      [{ scope: 'key', usd: 1, window: 'week' }, 'budgets[0]'],
    ] as const) {
      writeFileSync(file, JSON.stringify({ budgets: [budget] }));
      expect(() => loadConfigFile(file, {}), JSON.stringify(budget)).toThrow(path);
    }
    writeFileSync(file, JSON.stringify({ budgets: ['team:5/week'] }));
    expect(() => loadConfigFile(file, {})).toThrow(
      'Budget "team:5/week" is not <scope>:<dollars>[/<window>] with a scope among trace, agent, workflow, key and ' +
        'a window among day, month, lifetime (e.g. trace:2.5, agent:10/day).',
    );
  });

  it('takes the example file of docs/serve.md', () => {
    const docs = readFileSync(join(root, 'docs/serve.md'), 'utf8');
    const example = docs.split('## A config file')[1]!.split('```yaml\n')[1]!.split('```')[0]!;
    const file = join(dir, 'docs-example.yaml');
    writeFileSync(file, example);
    const env = {
      SWITCHYARD_PG_URL: 'postgres://db/sy',
      OPENAI_KEY_US: 'a',
      OPENAI_KEY_EU: 'b',
      ANTHROPIC_API_KEY: 'c',
    };
    const loaded = loadConfigFile(file, env);
    expect(loaded.providers?.openai?.keys?.map((key) => key.apiKey)).toEqual(['a', 'b']);
    // `workers: auto`, read as the cores this process may use (a CPU quota counts: serve-workers-auto.test.ts).
    expect(loaded.workers).toBe(availableCores());
    expect(loaded.budget).toEqual([
      { scope: 'agent', usd: 10, window: 'day' },
      { scope: 'workflow', usd: 100, window: 'month' },
    ]);
    expect(() => loadConfigFile(file, {})).toThrow(
      /api_key names the environment variable OPENAI_KEY_US, which is not set/,
    );
  });
});

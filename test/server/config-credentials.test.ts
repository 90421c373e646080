import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';

/**
 * Issue 35, item 10: every documented way of giving a provider its credentials in `serve --config` (docs/serve.md's
 * file, the several-keys form of docs/providers.md, `{ env: NAME }`, an entry the environment completes, a keyless
 * provider's endpoint) counts in `/v1/health`, `/v1/health/ready` and the startup log, as it does for calls. Served
 * for real (no --mock), with an environment holding only what each case gives; no provider is called.
 */
const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const cli = join(root, 'src/cli.ts');
const dir = mkdtempSync(join(tmpdir(), 'switchyard-config-credentials-'));
const postgres: ThrowawayPostgres | undefined = await startPostgres();
if (!postgres) console.warn('SKIPPED: docs/serve.md’s config file served (needs PostgreSQL; CI has it).');
afterAll(async () => {
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

type LogLine = Record<string, unknown> & { msg: string };

/** `serve --config <file>` until it listens: its log lines, health and readiness; stopped after. */
async function served(name: string, config: string, env: Record<string, string> = {}) {
  const file = join(dir, name);
  writeFileSync(file, config);
  const data = join(dir, `${name}.data`);
  const child = spawn(node, [cli, 'serve', '--port', '0', '--data', data, '--config', file], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  try {
    await expect.poll(() => stderr, { timeout: 30_000 }).toMatch(/"msg":"configuration"|switchyard: /);
    const logs = stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
    const url = logs.find((line) => line.msg === 'listening')?.url;
    if (typeof url !== 'string') throw new Error(`serve did not start: ${stderr}`);
    const health = (await (await fetch(`${url}/v1/health`)).json()) as { providers: string[] };
    const ready = await fetch(`${url}/v1/health/ready`);
    return { logs, providers: health.providers, ready: { status: ready.status, body: await ready.json() } };
  } finally {
    child.kill('SIGKILL');
  }
}

const warned = (logs: LogLine[]) => logs.some((line) => line.msg.startsWith('no provider has credentials'));

describe('createGateway: configuredProviders() counts what a call would use', () => {
  it('the several-keys form of docs/providers.md, per-key endpoints included; not keys without a key', () => {
    const gateway = createGateway({
      env: {},
      providers: {
        openai: {
          keys: [
            { apiKey: 'sk-a', label: 'team-a', weight: 3 },
            { apiKey: 'sk-b', label: 'team-b' },
          ],
        },
        azure: {
          keys: [
            { apiKey: 'az-eu', baseURL: 'https://eu-resource.openai.azure.com', label: 'eu' },
            { apiKey: 'az-us', baseURL: 'https://us-resource.openai.azure.com', label: 'us' },
          ],
        },
        // An empty list is no key.
        together: { keys: [] },
      },
    });
    expect([...gateway.configuredProviders()].sort()).toEqual(['azure', 'openai']);
  });
});

describe('serve --config: the credentials it is given count', { timeout: 90_000 }, () => {
  it('providers.openai.keys, the several-keys form: in health, ready, and no "no provider" warning', async () => {
    const { logs, providers, ready } = await served(
      'keys.yaml',
      'providers:\n  openai:\n    keys:\n      - { api_key: sk-one, weight: 3 }\n      - { api_key: sk-two }\n',
    );
    expect(providers).toEqual(['openai']);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', components: { providers: { status: 'ok' } } });
    expect(warned(logs)).toBe(false);
    expect(logs.find((line) => line.msg === 'configuration')).toMatchObject({ providers: { openai: { keys: 2 } } });
  });

  it('every form at once: keys (env, literal, per endpoint), api_key, { env }, environment, endpoints', async () => {
    const config = `
providers:
  openai:
    keys:
      - { api_key: { env: OPENAI_KEY_US }, label: us }
      - { api_key: sk-eu, base_url: https://eu.example.com/v1, label: eu }
  azure:
    keys:
      - { api_key: az-eu, base_url: https://eu-resource.openai.azure.com }
      - { api_key: az-us, base_url: https://us-resource.openai.azure.com }
  anthropic:
    api_key: sk-ant-literal
  google:
    api_key: { env: GOOGLE_KEY_FOR_SWITCHYARD }
  groq:
    base_url: https://groq.example.com/v1
  ollama:
    base_url: http://127.0.0.1:11434/v1
  mistral:
    timeout_ms: 5000
`;
    const env = {
      OPENAI_KEY_US: 'sk-us',
      GOOGLE_KEY_FOR_SWITCHYARD: 'g-key',
      GROQ_API_KEY: 'gsk-from-env',
      DEEPSEEK_API_KEY: 'sk-a,sk-b',
    };
    const { logs, providers, ready } = await served('forms.yaml', config, env);
    // mistral's entry gives no key, and none is in the environment: it is not counted.
    expect([...providers].sort()).toEqual(['anthropic', 'azure', 'deepseek', 'google', 'groq', 'ollama', 'openai']);
    expect(ready.status).toBe(200);
    expect(warned(logs)).toBe(false);
    expect(logs.find((line) => line.msg === 'configuration')).toMatchObject({
      providers: { openai: { keys: 2 }, azure: { keys: 2 }, anthropic: { keys: 1 }, deepseek: { keys: 2 } },
    });
    expect(JSON.stringify(logs)).not.toMatch(/sk-(us|eu|a|b|ant-literal)\b|az-(eu|us)|g-key|gsk-from-env/);
  });

  it('no credentials at all: not ready, and the warning', async () => {
    const { logs, providers, ready } = await served('none.yaml', 'providers:\n  mistral:\n    timeout_ms: 5000\n');
    expect(providers).toEqual([]);
    expect(ready.status).toBe(503);
    expect(warned(logs)).toBe(true);
  });

  it.skipIf(!postgres)('docs/serve.md’s config file, served as written', async () => {
    const docs = readFileSync(join(root, 'docs/serve.md'), 'utf8');
    const example = docs.split('## A config file')[1]!.split('```yaml\n')[1]!.split('```')[0]!;
    const env = {
      SWITCHYARD_PG_URL: postgres!.url,
      OPENAI_KEY_US: 'sk-us',
      OPENAI_KEY_EU: 'sk-eu',
      ANTHROPIC_API_KEY: 'sk-ant',
    };
    // As written; the flags `served` gives (a free port, the test's data directory) win over the file's.
    const { logs, providers, ready } = await served('docs-serve.yaml', example, env);
    expect([...providers].sort()).toEqual(['anthropic', 'openai']);
    expect(ready).toMatchObject({ status: 200, body: { components: { postgres: { status: 'ok' } } } });
    expect(warned(logs)).toBe(false);
  });
});

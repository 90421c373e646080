import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extendCatalog } from '../../src/index.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Issue 35, item 6: one model entry in every shape. The OpenAI-shaped `/v1/models`, Anthropic's `ModelInfo` and
 * `switchyard models` say the same lifecycle, deprecation and retirement as the `model_deprecated` warning of a call.
 * Rows of our own pin the dates far from today, so that the stages do not move with the clock.
 */
const supports = {
  reasoning: false,
  structured_outputs: true,
  json_mode: true,
  tools: true,
  parallel_tool_calls: true,
  images: false,
  temperature: true,
  top_p: true,
  stop: true,
  reasoning_can_disable: false,
};
const rows = [
  {
    id: 'lab-old-1',
    name: 'Lab Old 1',
    maker: 'lab',
    release_date: '2020-01-01',
    context_window: 8_000,
    max_output_tokens: 1_000,
    supports,
    providers: [{ provider: 'openai', model: 'lab-old-1' }],
    deprecated_at: '2020-06-01',
    retires_at: '2021-01-01',
  },
  {
    id: 'lab-fading-1',
    name: 'Lab Fading 1',
    maker: 'lab',
    release_date: '2024-01-01',
    context_window: 8_000,
    max_output_tokens: 1_000,
    supports,
    providers: [{ provider: 'openai', model: 'lab-fading-1' }],
    deprecated_at: '2025-06-01',
    retires_at: '2999-01-01',
    replacement: 'lab-new-1',
  },
  {
    id: 'lab-new-1',
    name: 'Lab New 1',
    maker: 'lab',
    release_date: '2025-01-01',
    context_window: 8_000,
    max_output_tokens: 1_000,
    supports,
    providers: [{ provider: 'openai', model: 'lab-new-1' }],
  },
];

let test: TestServer;
let anthropic: Anthropic;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-lifecycle-shapes-'));
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify(rows));
  test = await startTestServer({ gateway: { catalog: extendCatalog(rows) } });
  anthropic = new Anthropic({ baseURL: test.url, apiKey: test.key, maxRetries: 0 });
});
afterAll(async () => {
  await test.stop();
  rmSync(dir, { recursive: true, force: true });
});

const openAIModel = async (id: string) => jsonOf(await api(test, `/v1/models/${id}`));

describe('a model’s lifecycle, the same in every shape', () => {
  it('gpt-4o: deprecated (or retired) in the OpenAI shape, Anthropic’s shape and the warning of a call', async () => {
    const openai = await openAIModel('gpt-4o');
    const claude = await anthropic.models.retrieve('gpt-4o');
    expect(openai.lifecycle).not.toBe('active');
    expect(claude.lifecycle).toBe(openai.lifecycle);
    expect(claude.deprecated_at).toBe(`${openai.deprecated_at}T00:00:00Z`);
    expect(claude.retires_at).toBe(`${openai.retires_at}T00:00:00Z`);
    const answer = await test
      .openai()
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    const warnings = (answer as unknown as { switchyard: { warnings: Array<{ code: string }> } }).switchyard.warnings;
    expect(warnings.map((warning) => warning.code)).toContain('model_deprecated');
  });

  it('active, deprecated and retired: the OpenAI shape', async () => {
    expect(await openAIModel('lab-new-1')).toMatchObject({ lifecycle: 'active' });
    expect(await openAIModel('lab-new-1')).not.toHaveProperty('deprecated_at');
    expect(await openAIModel('lab-fading-1')).toMatchObject({
      lifecycle: 'deprecated',
      deprecated_at: '2025-06-01',
      retires_at: '2999-01-01',
      replacement: 'lab-new-1',
    });
    expect(await openAIModel('lab-old-1')).toMatchObject({
      lifecycle: 'retired',
      deprecated_at: '2020-06-01',
      retires_at: '2021-01-01',
    });
  });

  it('active, deprecated and retired: Anthropic’s shape, retired listed only when asked for', async () => {
    expect(await anthropic.models.retrieve('lab-new-1')).toMatchObject({
      lifecycle: 'active',
      deprecated_at: null,
      retires_at: null,
    });
    expect(await anthropic.models.retrieve('lab-fading-1')).toMatchObject({
      lifecycle: 'deprecated',
      deprecated_at: '2025-06-01T00:00:00Z',
      retires_at: '2999-01-01T00:00:00Z',
    });
    expect(await anthropic.models.retrieve('lab-old-1')).toMatchObject({
      lifecycle: 'retired',
      deprecated_at: '2020-06-01T00:00:00Z',
      retires_at: '2021-01-01T00:00:00Z',
    });
    const listed = async (lifecycle?: Array<'active' | 'deprecated' | 'retired'>) => {
      const ids: string[] = [];
      for await (const model of anthropic.models.list({ limit: 1000, ...(lifecycle ? { lifecycle } : {}) }))
        ids.push(model.id);
      return ids.filter((id) => id.startsWith('lab-'));
    };
    expect((await listed()).sort()).toEqual(['lab-fading-1', 'lab-new-1']);
    expect(await listed(['retired'])).toEqual(['lab-old-1']);
    expect((await listed(['active', 'retired'])).sort()).toEqual(['lab-new-1', 'lab-old-1']);
    const wrong = await anthropic.models.list({ lifecycle: ['gone' as 'active'] }).catch((caught) => caught);
    expect(wrong).toBeInstanceOf(Anthropic.BadRequestError);
  });

  it('a retired model’s call says it retired', async () => {
    const answer = await test.openai().chat.completions.create({
      model: 'lab-old-1',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const warnings = (answer as unknown as { switchyard: { warnings: Array<{ code: string; message: string }> } })
      .switchyard.warnings;
    expect(warnings.find((warning) => warning.code === 'model_deprecated')?.message).toContain('retired on 2021-01-01');
  });

  it('switchyard models: a deprecated column; --json the OpenAI shape', async () => {
    const root = resolve(import.meta.dirname, '../..');
    const run = (...args: string[]) =>
      promisify(execFile)(join(root, 'node_modules/.bin/node'), [join(root, 'src/cli.ts'), 'models', ...args], {
        cwd: root,
      });
    const catalog = join(dir, 'catalog.json');
    const table = (await run('--catalog', catalog)).stdout.split('\n');
    expect(table[0]).toMatch(/^id\s+maker\s+in\/1M\s+out\/1M\s+context\s+released\s+reasoning\s+deprecated$/);
    const row = (id: string) => table.find((line) => line.startsWith(`${id} `))?.trimEnd();
    expect(row('lab-old-1')).toMatch(/\sretired 2021-01-01$/);
    expect(row('lab-fading-1')).toMatch(/\sretires 2999-01-01$/);
    expect(row('lab-new-1')).toMatch(/\s2025-01-01$/);
    const list = JSON.parse((await run('--json', '--catalog', catalog)).stdout) as {
      data: Array<{ id: string; lifecycle: string }>;
    };
    expect(list.data.find((model) => model.id === 'lab-old-1')?.lifecycle).toBe('retired');
  });
});

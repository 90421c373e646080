import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createGateway, extendCatalog } from '../../src/index.ts';
import { sendJSON, startFakeHttpServer } from '../fake-servers/http.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';

/**
 * `switchyard catalog update` and `catalogRefresh` against a fake source serving models.dev's and OpenRouter's list
 * shapes (test/fixtures/catalog-sources, written for these tests). Nothing here reaches the internet.
 */
const root = resolve(import.meta.dirname, '../..');
const run = (...args: string[]) =>
  promisify(execFile)(join(root, 'node_modules/.bin/node'), [join(root, 'src/cli.ts'), ...args], { cwd: root });
const fixture = (name: string) => JSON.parse(readFileSync(join(root, 'test/fixtures/catalog-sources', name), 'utf8'));

const served: Record<string, { status: number; body: unknown }> = {
  '/api.json': { status: 200, body: fixture('models-dev.json') },
  '/api/v1/models': { status: 200, body: fixture('openrouter.json') },
};
const source = await startFakeHttpServer((request, response) => {
  const answer = served[request.url ?? ''] ?? { status: 404, body: { error: 'not found' } };
  sendJSON(response, answer.status, answer.body);
});
const openai = await useFakeOpenAIServer();
const directory = mkdtempSync(join(tmpdir(), 'switchyard-catalog-update-'));
afterAll(async () => {
  await source.close();
  rmSync(directory, { recursive: true, force: true });
});
const modelsDev = `${source.origin}/api.json`;
const openRouter = `${source.origin}/api/v1/models`;
const hello = [{ role: 'user' as const, content: 'hi' }];

describe('switchyard catalog update', () => {
  const out = join(directory, 'catalog.json');

  it('from a models.dev list: prints the difference, writes the rows, and the new model is callable', async () => {
    const { stdout } = await run('catalog', 'update', '--from', modelsDev, '--out', out);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe(
      `catalog update from ${modelsDev}: 1 added, 2 changed, 1 unchanged, 3 skipped (at providers without an ` +
        'adapter here, or without the facts a row needs)',
    );
    expect(lines).toContain('~ gpt-4o-2024-11-20  openai pricing.input 2.5 → 2; openai pricing.cached_input 1.25 → 1');
    expect(lines).toContain('~ llama-3.3-70b-instruct  groq pricing.output 0.79 → 0.99');
    expect(lines).toContain('+ gpt-7-2027-01-15  openai $3 / $12 per 1M  400,000 context');
    expect(stdout).not.toContain('claude-sonnet-4-5');
    expect(stdout).toContain(`wrote ${out}`);

    const catalog = extendCatalog(out);
    const row = catalog.list().data.find((model) => model.id === 'gpt-7-2027-01-15')!;
    expect(row).toMatchObject({ source: modelsDev, updated: '2027-01-15', max_output_tokens: 128_000 });
    expect(row.supports).toMatchObject({ reasoning: true, temperature: false, images: true });
    // Curated facts of a known model are kept: only the price moved.
    const gpt4o = catalog.find('gpt-4o-2024-11-20')!;
    expect(gpt4o.supports).toEqual(extendCatalog([]).find('gpt-4o-2024-11-20')!.supports);
    expect(gpt4o.providers[0]!.pricing).toEqual({ input: 2, output: 10, cached_input: 1 });

    openai.enqueue({ usage: { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 } });
    const gateway = createGateway({ catalog, env: {}, providers: { openai: { apiKey: 'sk-u', baseURL: openai.url } } });
    const response = await gateway.createCompletion({ model: 'gpt-7-2027-01-15', messages: hello });
    expect(openai.requests.at(-1)!.body.model).toBe('gpt-7-2027-01-15');
    expect(response.switchyard).toMatchObject({ model_known: true, cost_usd: 15 });
  });

  it('a second update adds OpenRouter models and keeps the first one’s rows and hand edits', async () => {
    const file = JSON.parse(readFileSync(out, 'utf8'));
    const gpt7 = file.models.find((row: { id: string }) => row.id === 'gpt-7-2027-01-15');
    gpt7.reasoning = { control: 'effort', can_disable: false, efforts: ['low', 'medium', 'high'] };
    writeFileSync(out, JSON.stringify(file));

    const { stdout } = await run('catalog', 'update', '--from', openRouter, '--out', out);
    expect(stdout.split('\n')[0]).toContain('3 added, 0 changed, 1 unchanged, 0 skipped');
    expect(stdout).toContain('+ nova-9:free  openrouter $0 / $0 per 1M  131,072 context');
    expect(stdout).toContain('+ nova-9-pro  openrouter $0.4 / $1.6 per 1M  262,144 context');
    expect(stdout).toContain('+ auto  openrouter (price unknown)');
    const catalog = extendCatalog(out);
    expect(catalog.find('gpt-7-2027-01-15')!.reasoning?.efforts).toEqual(['low', 'medium', 'high']);
    expect(catalog.find('gpt-4o-2024-11-20')!.providers[0]!.pricing?.input).toBe(2);
    expect(catalog.find('nova-9-pro')!.providers[0]).toEqual({
      provider: 'openrouter',
      model: 'newlab/nova-9-pro',
      pricing: { input: 0.4, output: 1.6, cached_input: 0.1, cache_write: 0.5 },
    });

    const again = await run('catalog', 'update', '--from', modelsDev, '--out', out);
    expect(again.stdout.split('\n')[0]).toContain('0 added, 0 changed, 4 unchanged');
    expect(extendCatalog(out).find('gpt-7-2027-01-15')!.reasoning?.efforts).toEqual(['low', 'medium', 'high']);
  });

  it('--dry-run writes nothing; a source that fails names itself', async () => {
    const dry = join(directory, 'dry.json');
    expect((await run('catalog', 'update', '--from', modelsDev, '--out', dry, '--dry-run')).stdout).toContain(
      '1 added',
    );
    expect(existsSync(dry)).toBe(false);
    const failed = await run('catalog', 'update', '--from', `${source.origin}/missing`, '--out', dry).catch((e) => e);
    expect(failed.stderr).toContain(`switchyard: ${source.origin}/missing: answered 404.`);
  });

  it('serve --catalog refuses a broken file before listening, naming the row and the field', async () => {
    const broken = join(directory, 'broken.json');
    writeFileSync(broken, JSON.stringify([{ id: 'x-1', base: 'gpt-4o', context_window: -5 }]));
    const failed = await run('serve', '--catalog', broken, '--port', '0', '--data', directory).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`${broken}: row 0 (x-1): context_window:`);
  });
});

describe('catalogRefresh', () => {
  it('refreshes in the background, and keeps the last good catalog when the source fails', async () => {
    const errors: Error[] = [];
    const gateway = createGateway({
      env: {},
      providers: { openai: { apiKey: 'sk-r', baseURL: openai.url } },
      catalogRefresh: { url: modelsDev, intervalMs: 3_600_000, onError: (error) => errors.push(error) },
    });
    const status = await gateway.refreshCatalog();
    expect(status).toMatchObject({ added: 1, changed: 2, error: null });
    expect(gateway.listModels().data.some((model) => model.id === 'gpt-7-2027-01-15')).toBe(true);
    await gateway.createCompletion({ model: 'gpt-7-2027-01-15', messages: hello });

    served['/api.json'] = { status: 500, body: { error: 'down' } };
    const failed = await gateway.refreshCatalog();
    expect(failed?.error?.message).toContain('answered 500');
    expect(failed?.refreshed_at).toBe(status?.refreshed_at);
    expect(errors).toHaveLength(1);
    expect(gateway.catalog.find('gpt-7-2027-01-15')).toBeDefined();

    served['/api.json'] = { status: 200, body: fixture('models-dev.json') };
    expect((await gateway.refreshCatalog())?.error).toBeNull();
    await gateway.close();
  });
});

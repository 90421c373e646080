import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CatalogError, type CatalogRow, createGateway, extendCatalog } from '../../src/index.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';

const server = await useFakeOpenAIServer();
const directory = mkdtempSync(join(tmpdir(), 'switchyard-catalog-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const hello = [{ role: 'user' as const, content: 'hi' }];
const usage = { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 };

function gatewayWith(catalog: ReturnType<typeof extendCatalog>) {
  return createGateway({
    catalog,
    env: {},
    retry: { maxRetries: 0 },
    providers: {
      openai: { apiKey: 'sk-catalog', baseURL: server.url },
      groq: { apiKey: 'gsk-catalog', baseURL: server.url },
    },
  });
}

function file(name: string, content: unknown): string {
  const path = join(directory, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** The CatalogError `extendCatalog` throws for `extension`. */
function refusal(extension: Parameters<typeof extendCatalog>[0]): CatalogError {
  try {
    extendCatalog(extension);
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogError);
    return error as CatalogError;
  }
  throw new Error('extendCatalog accepted it');
}

const newModel: CatalogRow = {
  id: 'acme-reasoner-1',
  name: 'Acme Reasoner 1',
  maker: 'acme',
  release_date: '2026-11-01',
  context_window: 200_000,
  max_output_tokens: 32_000,
  supports: {
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
  },
  providers: [{ provider: 'groq', model: 'acme/reasoner-1', pricing: { input: 1, output: 4, cached_input: 0.5 } }],
};

describe('extendCatalog', () => {
  it('adds a model, callable by its bare id at its price, listed with its source', async () => {
    const catalog = extendCatalog([newModel]);
    server.enqueue({ usage });
    const response = await gatewayWith(catalog).createCompletion({ model: 'acme-reasoner-1', messages: hello });
    expect(server.requests.at(-1)!.body.model).toBe('acme/reasoner-1');
    expect(response.switchyard).toMatchObject({ model: 'acme-reasoner-1', model_known: true, cost_usd: 5 });
    const row = catalog.list().data.find((model) => model.id === 'acme-reasoner-1')!;
    expect(row).toMatchObject({ source: 'user', updated: null, pricing: { input: 1, output: 4 } });
    const bundled = catalog.list().data.find((model) => model.id === 'gpt-4o-2024-11-20')!;
    expect(bundled).toMatchObject({ source: 'switchyard', updated: catalog.data.updated });
  });

  it('changes one price field of an offering and keeps the rest of the model', async () => {
    const catalog = extendCatalog([{ id: 'gpt-4o', providers: [{ provider: 'openai', pricing: { input: 2 } }] }]);
    const entry = catalog.find('gpt-4o-2024-11-20')!;
    expect(entry.providers[0]!.pricing).toMatchObject({ input: 2, output: 10, cached_input: 1.25 });
    expect(entry.providers.map((offering) => offering.provider)).toEqual(['openai', 'azure', 'openrouter']);
    expect(entry.providers.slice(1)).toEqual(extendCatalog([]).find('gpt-4o-2024-11-20')!.providers.slice(1));
    server.enqueue({ usage });
    const response = await gatewayWith(catalog).createCompletion({ model: 'gpt-4o-latest', messages: hello });
    expect(response.switchyard.cost_usd).toBe(12); // 1M × 2 + 1M × 10
  });

  it('builds a fine-tune on a base model: its facts, its own offering and price', async () => {
    const catalog = extendCatalog([
      {
        id: 'support-ft',
        base: 'gpt-4o-mini-2024-07-18',
        providers: [
          {
            provider: 'openai',
            model: 'ft:gpt-4o-mini-2024-07-18:acme::A1b2C3',
            pricing: { input: 0.3, output: 1.2, cached_input: 0.15 },
          },
        ],
      },
    ]);
    const entry = catalog.find('support-ft')!;
    const base = catalog.find('gpt-4o-mini-2024-07-18')!;
    expect(entry).toMatchObject({ name: 'support-ft', supports: base.supports, context_window: base.context_window });
    expect(entry.providers).toHaveLength(1);
    server.enqueue({ usage });
    const response = await gatewayWith(catalog).createCompletion({ model: 'support-ft', messages: hello });
    expect(server.requests.at(-1)!.body.model).toBe('ft:gpt-4o-mini-2024-07-18:acme::A1b2C3');
    expect(response.switchyard.cost_usd).toBe(1.5);
  });

  it('an offering without a price is called and costs null with a warning', async () => {
    const catalog = extendCatalog([{ id: 'gpt-4o-2024-11-20', providers: [{ provider: 'groq', model: 'gpt-4o-x' }] }]);
    const response = await gatewayWith(catalog).createCompletion({ model: 'groq/gpt-4o-latest', messages: hello });
    expect(server.requests.at(-1)!.body.model).toBe('gpt-4o-x');
    expect(response.switchyard.cost_usd).toBeNull();
    // gpt-4o is deprecated (catalog): model_deprecated comes first.
    expect(response.switchyard.warnings.map((warning) => warning.code)).toEqual(['model_deprecated', 'price_unknown']);
  });

  it('reads a file with aliases, synonyms, a source and a date', async () => {
    const path = file('catalog.json', {
      source: 'acme-registry',
      updated: '2026-11-20',
      models: [newModel],
      aliases: { 'acme-latest': 'acme-reasoner-1' },
      synonyms: { reasoner: 'acme-latest' },
    });
    const catalog = extendCatalog(path);
    expect(catalog.find('reasoner')?.id).toBe('acme-reasoner-1');
    expect(catalog.list().data.find((model) => model.id === 'acme-latest')).toMatchObject({
      alias_for: 'acme-reasoner-1',
      source: 'acme-registry',
      updated: '2026-11-20',
    });
  });
});

describe('extendCatalog refuses, naming the file, the row, the model and the field', () => {
  it('a price that is not a number', () => {
    const path = file('bad-price.json', [
      newModel,
      { ...newModel, id: 'acme-2', providers: [{ provider: 'groq', model: 'x', pricing: { input: '1' } }] },
    ]);
    const error = refusal(path);
    expect(error.message).toContain(`${path}: row 1 (acme-2): providers[0].pricing.input:`);
    expect(error).toMatchObject({ source: path, row: 1, field: 'providers[0].pricing.input', code: 'invalid_catalog' });
  });

  it('a field the schema does not know', () => {
    const error = refusal([{ id: 'gpt-4o', cost: 3 } as unknown as CatalogRow]);
    expect(error.message).toContain('row 0 (gpt-4o)');
    expect(error.message).toMatch(/cost/);
  });

  it('a new model missing a field', () => {
    const { context_window: _left, ...row } = newModel;
    const error = refusal([row]);
    expect(error).toMatchObject({ row: 0, field: 'context_window' });
    expect(error.message).toContain('row 0 (acme-reasoner-1): context_window:');
  });

  it('a base that does not exist, or a base for a model that does', () => {
    expect(refusal([{ id: 'ft-1', base: 'no-such-model', providers: [] }]).field).toBe('base');
    expect(refusal([{ id: 'gpt-4o', base: 'gpt-4o-mini' }]).message).toContain('already in the catalog');
  });

  it('an alias to nothing, a file that is missing or not JSON', () => {
    expect(refusal({ models: [], aliases: { 'nothing-latest': 'nothing' } }).message).toContain('"nothing"');
    expect(refusal(join(directory, 'missing.json')).message).toContain('cannot be read (ENOENT)');
    expect(refusal(file('broken.json', '{ "models": [')).message).toContain('not JSON');
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogSchemas } from '../../src/catalog/catalog-schema.ts';

const catalogDataSchema = catalogSchemas().catalogData;

import { OPENAI_STYLE_PROFILE } from '../../src/catalog/model-profile.ts';
import data from '../../src/catalog/models.json' with { type: 'json' };
import { fromModelsDev } from '../../src/catalog/sources/models-dev.ts';
import { fromOpenRouter } from '../../src/catalog/sources/openrouter.ts';
import { updateCatalog } from '../../src/catalog/update-catalog.ts';
import { createGateway, type ModelDeprecation } from '../../src/index.ts';
import { startServer } from '../../src/server/index.ts';
import { collect } from '../helpers/chunks.ts';

/**
 * Issue 25, section 4: models that are going away. The catalog knows when a provider deprecated a model, when it
 * retires and what replaces it; a call to such a model says so in its warnings, `serve` logs it once per model, and
 * no `-latest` alias points at one.
 */

const catalog = catalogDataSchema.parse(data);
const byId = new Map(catalog.models.map((model) => [model.id, model]));
const goingAway = catalog.models.filter((model) => model.deprecated_at || model.retires_at);
const hello = [{ role: 'user' as const, content: 'ping' }];

describe('models.json: deprecations', () => {
  it('carries the dates the providers published', () => {
    expect(byId.get('claude-sonnet-4-5-20250929')).toMatchObject({
      deprecated_at: '2026-09-30',
      retires_at: '2026-11-30',
      replacement: 'claude-sonnet-5-5',
    });
    expect(byId.get('gpt-4o-2024-11-20')).toMatchObject({ retires_at: '2027-01-14', replacement: 'gpt-6-luna' });
    expect(byId.get('o3-2025-04-16')).toMatchObject({ deprecated_at: '2026-06-11', retires_at: '2026-12-11' });
    expect(goingAway.length).toBeGreaterThanOrEqual(9);
  });

  it('names a replacement the catalog has and that is not going away, and retires after it deprecates', () => {
    for (const model of goingAway) {
      if (model.replacement !== undefined) {
        const replacement = byId.get(model.replacement);
        expect(replacement, `${model.id} → ${model.replacement}`).toBeDefined();
        expect(replacement?.deprecated_at ?? replacement?.retires_at, model.replacement).toBeUndefined();
      }
      if (model.deprecated_at && model.retires_at) expect(model.retires_at > model.deprecated_at, model.id).toBe(true);
    }
  });

  it('keeps every -latest alias on a model that is not going away', () => {
    for (const [alias, target] of Object.entries(catalog.aliases)) {
      const model = byId.get(target)!;
      expect(model.deprecated_at ?? model.retires_at, `${alias} → ${target}`).toBeUndefined();
    }
  });

  it('still accepts the names of a family that is going away, as synonyms', () => {
    const models = createGateway({ env: {} }).catalog;
    for (const name of ['gpt-4o', 'gpt-4o-latest', 'o3-latest', 'gpt-5-latest'])
      expect(models.find(name)?.deprecated_at, name).toBeDefined();
  });

  it('lists the dates and the replacement beside the model', () => {
    const list = createGateway({ env: {} }).listModels().data;
    expect(list.find((model) => model.id === 'claude-sonnet-4-5-20250929')).toMatchObject({
      deprecated_at: '2026-09-30',
      retires_at: '2026-11-30',
      replacement: 'claude-sonnet-5-5',
    });
    expect(list.find((model) => model.id === 'claude-sonnet-5-5')).not.toHaveProperty('deprecated_at');
  });
});

describe('a call to a deprecated model', () => {
  it('answers with a model_deprecated warning naming the dates and the replacement, by any of its names', async () => {
    const gateway = createGateway({ mock: true, env: {} });
    for (const model of ['claude-sonnet-4-5', 'claude-sonnet-4-5-20250929', 'anthropic/claude-sonnet-4-5']) {
      const response = await gateway.createCompletion({ model, messages: hello });
      const warning = response.switchyard.warnings.find((item) => item.code === 'model_deprecated');
      expect(warning, model).toMatchObject({ param: 'model' });
      expect(warning?.message).toContain('claude-sonnet-4-5-20250929');
      expect(warning?.message).toContain('2026-11-30');
      expect(warning?.message).toContain('claude-sonnet-5-5');
    }
    const stream = await gateway.createCompletion({ model: 'gpt-4o', messages: hello, stream: true });
    await collect(stream);
    expect(stream.switchyard?.warnings.map((warning) => warning.code)).toContain('model_deprecated');
    const current = await gateway.createCompletion({ model: 'claude-sonnet-latest', messages: hello });
    expect(current.switchyard.warnings.map((warning) => warning.code)).not.toContain('model_deprecated');
  });

  it('is told to onModelDeprecated once per model per gateway', async () => {
    const told: ModelDeprecation[] = [];
    const gateway = createGateway({ mock: true, env: {}, onModelDeprecated: (deprecation) => told.push(deprecation) });
    for (const model of ['gpt-4o', 'gpt-4o-2024-11-20', 'o3', 'gpt-4o', 'claude-sonnet-latest'])
      await gateway.createCompletion({ model, messages: hello });
    expect(told).toEqual([
      expect.objectContaining({ model: 'gpt-4o-2024-11-20', retires_at: '2027-01-14', replacement: 'gpt-6-luna' }),
      expect.objectContaining({ model: 'o3-2025-04-16', retires_at: '2026-12-11' }),
    ]);
  });

  it('is logged once per model by serve', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-lifecycle-'));
    const server = await startServer({ port: 0, dataDir, mock: true, log: (line) => lines.push(line) });
    try {
      const { key } = await server.keys.create('test');
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'claude-sonnet-4-5', messages: hello }),
        });
        expect(response.status).toBe(200);
      }
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    const logged = lines.filter((line) => line.msg === 'model deprecated');
    expect(logged).toEqual([
      expect.objectContaining({ level: 'warn', model: 'claude-sonnet-4-5-20250929', retires_at: '2026-11-30' }),
    ]);
  });
});

describe('catalog update reads the deprecations the lists carry', () => {
  const update = (source: Parameters<typeof updateCatalog>[0]['source']) =>
    updateCatalog({
      base: createGateway({ env: {} }).catalog,
      source,
      profileOf: () => OPENAI_STYLE_PROFILE,
      today: '2026-11-25',
    });

  it("OpenRouter's expiration_date: the retirement of a model it is the default provider of, or of a new one", () => {
    const result = update(
      fromOpenRouter({
        data: [
          { id: 'z-ai/glm-4.7', name: 'GLM 4.7', expiration_date: '2026-12-31' },
          // OpenRouter stops listing it; OpenAI, its default provider, decides when it retires.
          { id: 'openai/gpt-5.4', name: 'GPT-5.4', expiration_date: '2026-12-01' },
          {
            id: 'newlab/old-1',
            name: 'Old 1',
            created: 1750000000,
            context_length: 32768,
            pricing: { prompt: '0.000001', completion: '0.000002' },
            expiration_date: '2027-02-01',
          },
        ],
      }),
    );
    expect(result.changes.find((change) => change.id === 'glm-4.7')?.fields).toEqual([
      { field: 'retires_at', from: undefined, to: '2026-12-31' },
    ]);
    expect(result.changes.find((change) => change.id === 'gpt-5.4-2026-03-05')).toBeUndefined();
    expect(result.rows.find((row) => row.id === 'old-1')).toMatchObject({ retires_at: '2027-02-01' });
  });

  it('models.dev\'s status "deprecated": deprecated since the list last changed it, unless the catalog knows', () => {
    const model = (id: string) => ({ id, name: id, status: 'deprecated', last_updated: '2026-11-01' });
    const result = update(
      fromModelsDev(
        {
          mistral: { id: 'mistral', models: { 'mistral-medium-2508': model('mistral-medium-2508') } },
          anthropic: { id: 'anthropic', models: { 'claude-sonnet-4-5-20250929': model('claude-sonnet-4-5-20250929') } },
        },
        new Set(['mistral', 'anthropic']),
      ),
    );
    expect(result.rows.find((row) => row.id === 'mistral-medium-2508')).toMatchObject({
      deprecated_at: '2026-11-01',
    });
    expect(result.changes.find((change) => change.id === 'claude-sonnet-4-5-20250929')).toBeUndefined();
  });
});

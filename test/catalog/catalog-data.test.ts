import { describe, expect, it } from 'vitest';
import { catalogSchemas } from '../../src/catalog/catalog-schema.ts';

const catalogDataSchema = catalogSchemas().catalogData;

import data from '../../src/catalog/models.json' with { type: 'json' };
import { listModels } from '../../src/index.ts';
import { builtInRegistry } from '../../src/providers/registry.ts';

const catalog = catalogDataSchema.parse(data);
const pinned = new Set(catalog.models.map((model) => model.id));

describe('models.json', () => {
  it('validates against the catalog schema', () => {
    const result = catalogDataSchema.safeParse(data);
    expect(result.success ? [] : result.error.issues).toEqual([]);
  });

  it('covers at least 100 ids, 8 makers and 10 providers', () => {
    const ids = pinned.size + Object.keys(catalog.aliases).length;
    const makers = new Set(catalog.models.map((model) => model.maker));
    const providers = new Set(catalog.models.flatMap((model) => model.providers.map((offering) => offering.provider)));
    expect(ids).toBeGreaterThanOrEqual(100);
    expect(makers.size).toBeGreaterThanOrEqual(8);
    for (const maker of ['openai', 'anthropic', 'google', 'mistral', 'xai', 'deepseek', 'meta', 'qwen'])
      expect(makers).toContain(maker);
    expect(providers.size).toBeGreaterThanOrEqual(10);
  });

  it('has one namespace: no id is both pinned, an alias or a synonym', () => {
    const all = [...pinned, ...Object.keys(catalog.aliases), ...Object.keys(catalog.synonyms)];
    expect(all.length).toBe(new Set(all).size);
  });

  it('resolves every alias to a pinned id and every synonym to an alias or pinned id', () => {
    for (const [alias, target] of Object.entries(catalog.aliases)) {
      expect(alias.endsWith('-latest'), alias).toBe(true);
      expect(pinned.has(target), `${alias} → ${target}`).toBe(true);
    }
    for (const [synonym, target] of Object.entries(catalog.synonyms)) {
      expect(pinned.has(target) || target in catalog.aliases, `${synonym} → ${target}`).toBe(true);
    }
  });

  it('pinned ids carry a date or version suffix', () => {
    for (const id of pinned) expect(id, id).toMatch(/\d/);
  });

  it('keeps reasoning facts consistent with the supports flags', () => {
    for (const model of catalog.models) {
      expect(Boolean(model.reasoning), model.id).toBe(model.supports.reasoning);
      if (!model.reasoning) continue;
      expect(model.reasoning.can_disable, model.id).toBe(model.supports.reasoning_can_disable);
      if (model.reasoning.control === 'budget') {
        expect(model.reasoning.max_budget, model.id).toBeGreaterThan(model.reasoning.min_budget ?? -1);
        expect(model.reasoning.max_budget!, model.id).toBeLessThanOrEqual(model.max_output_tokens);
      }
      if (model.reasoning.control === 'effort' || model.reasoning.control === 'level')
        expect(model.reasoning.efforts?.length, model.id).toBeGreaterThan(0);
    }
  });

  it('names only providers that have a definition, with sane prices and limits', () => {
    for (const model of catalog.models) {
      expect(model.max_output_tokens, model.id).toBeLessThanOrEqual(model.context_window);
      expect(Date.parse(model.release_date), model.id).toBeLessThanOrEqual(Date.parse(catalog.updated));
      for (const offering of model.providers) {
        expect(builtInRegistry.get(offering.provider)?.id, `${model.id}: ${offering.provider}`).toBe(offering.provider);
        // The shipped catalog prices every offering; only user rows may leave a price out.
        expect(offering.pricing, `${model.id}: ${offering.provider}`).toBeDefined();
        expect(offering.pricing!.cached_input, model.id).toBeLessThanOrEqual(offering.pricing!.input);
      }
    }
  });
});

describe('listModels()', () => {
  it('returns the OpenAI /v1/models list shape with the catalog facts', () => {
    const list = listModels();
    expect(list.object).toBe('list');
    expect(list.data.length).toBe(pinned.size + Object.keys(catalog.aliases).length);
    for (const model of list.data) {
      expect(model).toMatchObject({ object: 'model', owned_by: expect.any(String), created: expect.any(Number) });
      expect(model.pricing).toEqual(model.providers[0]!.pricing);
      expect(new Date(model.created * 1000).toISOString().slice(0, 10)).toBe(model.release_date);
    }
    const alias = list.data.find((model) => model.id.endsWith('-latest'))!;
    expect(pinned.has(alias.alias_for!)).toBe(true);
  });

  it('filters reasoning models', () => {
    const reasoning = listModels({ reasoning: true }).data;
    expect(reasoning.length).toBeGreaterThan(0);
    expect(reasoning.every((model) => model.supports.reasoning)).toBe(true);
    expect(reasoning.length).toBeLessThan(listModels().data.length);
  });

  it("shows each reasoning model's low/medium/high budgets, within its budget range", () => {
    for (const model of listModels({ reasoning: true }).data) {
      const { budgets, min_budget = 0, max_budget = model.max_output_tokens } = model.reasoning!;
      expect(budgets.low, model.id).toBeLessThanOrEqual(budgets.medium);
      expect(budgets.medium, model.id).toBeLessThanOrEqual(budgets.high);
      expect(budgets.low, model.id).toBeGreaterThanOrEqual(min_budget);
      expect(budgets.high, model.id).toBeLessThanOrEqual(max_budget);
    }
    const sonnet = listModels().data.find((model) => model.id === 'claude-sonnet-4-5-20250929')!;
    expect(sonnet.reasoning!.budgets).toEqual({ low: 12_800, medium: 32_000, high: 51_200 });
  });
});

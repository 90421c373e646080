import { describe, expect, it } from 'vitest';
import { fromModelsDev } from '../../src/catalog/sources/models-dev.ts';
import { fromOpenRouter } from '../../src/catalog/sources/openrouter.ts';
import { CatalogError, extendCatalog } from '../../src/index.ts';

/**
 * Catalog data no catalog can mean: each used to be taken as it was (a date `9999-99-99`; an alias
 * `__proto__`, silently dropped; an alias cycle, every alias of it pointing nowhere) or to fail with a bare "Invalid
 * time value" (a list's timestamp out of range). Each is now a `CatalogError` saying where and what.
 */
const refusal = (run: () => unknown): CatalogError => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogError);
    return error as CatalogError;
  }
  throw new Error('not refused');
};

describe('catalog validation', () => {
  it('refuses a date no calendar has, naming the row and field', () => {
    for (const date of ['9999-99-99', '2025-02-29', '2024-13-01', '2024-04-31']) {
      const error = refusal(() =>
        extendCatalog([{ id: 'gpt-4o-2024-11-20', release_date: date }], { source: 'rows.json' }),
      );
      expect(error.message).toMatch(
        /^rows\.json: row 0 \(gpt-4o-2024-11-20\): release_date: must be a date a calendar/,
      );
      expect(error).toMatchObject({ row: 0, field: 'release_date' });
    }
    expect(refusal(() => extendCatalog({ updated: '2026-00-10', models: [] })).message).toMatch(/updated: must be/);
    expect(extendCatalog([{ id: 'gpt-4o-2024-11-20', release_date: '2024-02-29' }]).find('gpt-4o')).toBeDefined();
  });

  it('refuses aliases and synonyms named like members of every object', () => {
    const fromJson = (text: string) => JSON.parse(text) as Parameters<typeof extendCatalog>[0];
    const proto = refusal(() => extendCatalog(fromJson('{"models":[],"synonyms":{"__proto__":"gpt-4o-2024-11-20"}}')));
    expect(proto.message).toMatch(/synonyms\.__proto__: "__proto__" cannot be a synonym: it is a member of every/);
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const error = refusal(() => extendCatalog({ models: [], synonyms: { [name]: 'gpt-4o-2024-11-20' } }));
      expect(error).toMatchObject({ field: `synonyms.${name}` });
    }
    const alias = refusal(() => extendCatalog(fromJson('{"models":[],"aliases":{"__proto__":"gpt-4o-2024-11-20"}}')));
    expect(alias.message).toMatch(/cannot be an alias/);
  });

  it('refuses an alias cycle, and resolves an alias of an alias whatever the order', () => {
    const error = refusal(() =>
      extendCatalog({ models: [], aliases: { 'a-latest': 'b-latest', 'b-latest': 'a-latest' } }, { source: 'x.json' }),
    );
    expect(error.message).toBe(
      'x.json: aliases: "a-latest" → "b-latest" → "a-latest" is a cycle; an alias must end at a model id.',
    );
    const chained = extendCatalog({ models: [], aliases: { 'a-latest': 'b-latest', 'b-latest': 'gpt-4o-2024-11-20' } });
    expect(chained.find('a-latest')?.id).toBe('gpt-4o-2024-11-20');
  });

  it('refuses a timestamp out of range in a list, naming the list, the model and the field', () => {
    const openrouter = (created: number) => ({
      data: [{ id: 'acme/model-1', name: 'Model 1', created, pricing: { prompt: '0.000001', completion: '0.000002' } }],
    });
    expect(fromOpenRouter(openrouter(1_735_689_600)).models[0]?.release_date).toBe('2025-01-01');
    for (const created of [1e20, 1_735_689_600_000_000, -5]) {
      const error = refusal(() => fromOpenRouter(openrouter(created), 'or.json'));
      expect(error.message).toMatch(
        /^or\.json: model "acme\/model-1": created: .* is not a time in seconds between 1970/,
      );
    }
    const modelsDev = { openai: { models: { 'gpt-9': { id: 'gpt-9', release_date: '9999-99-99' } } } };
    expect(refusal(() => fromModelsDev(modelsDev, new Set(['openai']))).message).toBe(
      'models.dev: model "openai/gpt-9": release_date: "9999-99-99" is not a date a calendar has.',
    );
  });
});

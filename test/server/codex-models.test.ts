import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extendCatalog } from '../../src/index.ts';
import { CODEX_CATALOG_MAX_BYTES } from '../../src/server/routes/codex-models.ts';
import { api, jsonOf, startTestServer, type TestServer } from './start-test-server.ts';

/**
 * `GET /v1/codex/models`, Codex's model catalog (`model_catalog_url` of a provider in Codex's configuration): each
 * model in Codex's `ModelInfo` shape, so that Codex sends its `apply_patch` tool on every model. The real Codex reads
 * it in `test/agents/agents.e2e.test.ts`; rows of our own pin lifecycle dates far from today.
 */
const supports = {
  reasoning: false,
  structured_outputs: true,
  json_mode: true,
  tools: true,
  parallel_tool_calls: false,
  images: false,
  temperature: true,
  top_p: true,
  stop: true,
  reasoning_can_disable: false,
};
const lab = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: id.toUpperCase(),
  maker: 'lab',
  release_date: '2020-01-01',
  context_window: 8_000,
  max_output_tokens: 1_000,
  supports,
  providers: [{ provider: 'openai', model: id }],
  ...extra,
});
const rows = [
  lab('lab-old-1', { deprecated_at: '2020-06-01', retires_at: '2021-01-01' }),
  lab('lab-fading-1', { deprecated_at: '2025-06-01', retires_at: '2999-01-01', replacement: 'lab-new-1' }),
  lab('lab-new-1', { release_date: '2021-01-01' }),
];

/** The fields Codex 0.169 cannot read an entry without (each left out in turn against the real Codex). */
const CODEX_REQUIRED = [
  'slug',
  'display_name',
  'supported_reasoning_levels',
  'shell_type',
  'visibility',
  'supported_in_api',
  'priority',
  'base_instructions',
  'support_verbosity',
  'truncation_policy',
  'experimental_supported_tools',
];

interface Entry {
  slug: string;
  visibility: string;
  priority: number;
  supported_reasoning_levels: Array<{ effort: string; description: string }>;
  [field: string]: unknown;
}

let test: TestServer;
let models: Entry[];
beforeAll(async () => {
  test = await startTestServer({ gateway: { catalog: extendCatalog(rows) } });
  const response = await api(test, '/v1/codex/models?client_version=0.169.0', { key: null });
  expect(response.status).toBe(200);
  models = ((await jsonOf(response)) as { models: Entry[] }).models;
});
afterAll(() => test.stop());

const entry = (slug: string) => {
  const found = models.find((model) => model.slug === slug);
  expect(found, slug).toBeDefined();
  return found!;
};
const efforts = (slug: string) => entry(slug).supported_reasoning_levels.map((level) => level.effort);

describe("Codex's model catalog", () => {
  it('lists every model /v1/models lists but the retired, OpenAI’s first, in picker order', async () => {
    const listed = (await jsonOf(await api(test, '/v1/models'))).data as Array<{ id: string; lifecycle: string }>;
    const expected = listed.filter((model) => model.lifecycle !== 'retired').map((model) => model.id);
    const shown = models.filter((model) => model.visibility === 'list');
    expect(shown.map((model) => model.slug).sort()).toEqual(expected.sort());
    expect(models.map((model) => model.slug)).not.toContain('lab-old-1');
    // Codex's default model is the first: OpenAI's newest, as Codex's own default is OpenAI's.
    expect(models[0]!.slug).toMatch(/^gpt-/);
    expect(models.map((model) => model.priority)).toEqual(models.map((_, index) => index + 1));
  });

  it('gives each entry the fields Codex requires, apply_patch as a free-form tool and the base instructions', () => {
    for (const model of models) {
      for (const field of CODEX_REQUIRED) expect(model, `${model.slug}.${field}`).toHaveProperty(field);
      expect(model.apply_patch_tool_type).toBe('freeform');
      expect(model.base_instructions).toContain('apply_patch');
    }
    expect(Buffer.byteLength(JSON.stringify({ models }))).toBeLessThanOrEqual(CODEX_CATALOG_MAX_BYTES);
  });

  it('says what the catalog knows of a model: its name, context window, images, parallel tool calls', async () => {
    const claude = (await jsonOf(await api(test, '/v1/models/claude-sonnet-5-5'))) as {
      context_window: number;
      name: string;
    };
    expect(entry('claude-sonnet-5-5')).toMatchObject({
      display_name: claude.name,
      context_window: claude.context_window,
      input_modalities: ['text', 'image'],
      supports_parallel_tool_calls: true,
      visibility: 'list',
      upgrade: null,
    });
    expect(entry('lab-new-1')).toMatchObject({ input_modalities: ['text'], supports_parallel_tool_calls: false });
  });

  it('offers the reasoning levels each model takes, none where it cannot reason', () => {
    // Claude's own levels, `none` since it can stop thinking; Gemini 2.5 sets a budget, which each effort becomes.
    expect(efforts('claude-sonnet-5-5')).toEqual(['none', 'low', 'medium', 'high', 'xhigh', 'max']);
    expect(efforts('gemini-2.5-flash')).toEqual(['none', 'low', 'medium', 'high']);
    // Qwen's `default` is no effort of the Responses API: Codex could not send it.
    expect(efforts('qwen3-32b')).toEqual(['none']);
    expect(efforts('lab-new-1')).toEqual([]);
    expect(entry('claude-sonnet-5-5')).not.toHaveProperty('default_reasoning_level');
  });

  it('describes a deprecated model with its retirement and its replacement as Codex’s upgrade', () => {
    expect(entry('lab-fading-1').description).toContain('retires on 2999-01-01');
    expect(entry('lab-fading-1').upgrade).toEqual({
      model: 'lab-new-1',
      migration_markdown:
        '`lab-fading-1` is deprecated by its maker, and retires on 2999-01-01. `lab-new-1` replaces it.',
    });
  });

  it('keeps the synonyms hidden, so that -m with one finds its model’s entry', () => {
    const synonym = entry('claude-haiku-4-5');
    expect(synonym.visibility).toBe('hide');
    expect(synonym.context_window).toBe(entry('claude-haiku-4-5-20251001').context_window);
    expect(models.filter((model) => model.visibility === 'hide').map((model) => model.slug)).not.toContain(
      'claude-haiku-4-5-20251001',
    );
  });

  it('is read without a key, as /v1/models; HEAD too', async () => {
    const head = await fetch(`${test.url}/v1/codex/models`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toContain('application/json');
  });
});

describe('a catalog larger than Codex reads', () => {
  it('is cut to what Codex reads, keeping the newest models', async () => {
    const many = Array.from({ length: 600 }, (_, index) =>
      lab(`bulk-${String(index).padStart(3, '0')}`, {
        release_date: `2019-01-${String((index % 28) + 1).padStart(2, '0')}`,
      }),
    );
    const big = await startTestServer({ gateway: { catalog: extendCatalog(many) } });
    try {
      const text = await (await api(big, '/v1/codex/models', { key: null })).text();
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(CODEX_CATALOG_MAX_BYTES);
      const slugs = (JSON.parse(text) as { models: Entry[] }).models.map((model) => model.slug);
      expect(slugs).toContain('claude-sonnet-5-5');
      expect(slugs.filter((slug) => slug.startsWith('bulk-')).length).toBeLessThan(many.length);
    } finally {
      await big.stop();
    }
  });
});

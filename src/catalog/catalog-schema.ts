import type * as Zod from 'zod';
import { zod } from '../internal/load-zod.ts';

/** Whether `YYYY-MM-DD` names a day that exists: `2025-02-29` and `9999-99-99` do not. */
export function isRealDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * Names an alias or a synonym may not have: the members of every JavaScript object (`__proto__`, `constructor`,
 * `toString`, …). Looked up in a plain object, such a name finds the member, not the catalog's entry.
 */
export function isPrototypeMember(name: string): boolean {
  return name === '__proto__' || name in Object.prototype;
}

/**
 * The shape of `models.json`, the catalog's data file, as zod schemas: what the test suite checks the file against,
 * and what a contributor reads to add a model. Built on first use: the gateway trusts its bundled data at run time,
 * so only a catalog extension, `catalog update` and the tests need them, and importing the package loads no zod.
 */
export const catalogSchemas = (): CatalogSchemas => (schemas ??= buildSchemas(zod().z));
let schemas: CatalogSchemas | undefined;
export type CatalogSchemas = ReturnType<typeof buildSchemas>;

function buildSchemas(z: typeof Zod.z) {
  const usdPerMillion = z.number().nonnegative();
  const isoDate = z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD')
    .refine(isRealDate, 'must be a date a calendar has (YYYY-MM-DD, a month 01–12 and a day of that month)');

  const lookupName = z.string().refine((name) => !isPrototypeMember(name), 'is a member of every JavaScript object');

  const cachePrices = {
    /** Price of cache-hit input tokens; equal to `input` when the provider has no discount. */
    cached_input: usdPerMillion,
    /** Price of tokens written to a cache with the default time to live (Anthropic: 5 minutes, 1.25 × input). */
    cache_write: usdPerMillion.optional(),
    /** Price of tokens written to a cache kept for an hour (Anthropic: 2 × input). */
    cache_write_1h: usdPerMillion.optional(),
  };

  /** USD per 1M tokens. A field left out where optional costs what the field above it costs (`cache_write`: input). */
  const pricingSchema = z.strictObject({
    input: usdPerMillion,
    output: usdPerMillion,
    ...cachePrices,
    /**
     * Image tokens in an answer, where the provider prices them apart from text (Gemini's image models). A model
     * that answers with images and has no such price costs `null` when it does, never the text rate.
     */
    output_image: usdPerMillion.optional(),
    /** The prices of a request whose prompt is longer than `threshold` tokens: the whole request is billed at them. */
    long_context: z
      .strictObject({
        threshold: z.number().int().positive(),
        input: usdPerMillion,
        output: usdPerMillion,
        ...cachePrices,
        cached_input: usdPerMillion.optional(),
      })
      .optional(),
  });

  const providerOfferingSchema = z.strictObject({
    /** A provider id from `src/providers/registry.ts` (openai, anthropic, google, groq, …). */
    provider: z.string().regex(/^[a-z][a-z0-9-]*$/),
    /** The model name this provider expects on the wire (`accounts/fireworks/models/…`, `llama3.3:70b`, …). */
    model: z.string().min(1),
    /** Left out when the price is not known: such calls cost `null` with a `price_unknown` warning, never $0. */
    pricing: pricingSchema.optional(),
    /**
     * Claude on Anthropic's API or Vertex AI: the API version (`anthropic-version`) on which the model takes
     * `temperature` and `top_p`, which the SDK's own version refuses. A request that sends either is made on it;
     * without it they are dropped with a warning.
     */
    sampling_api_version: z.string().min(1).optional(),
  });

  const reasoningFactsSchema = z.strictObject({
    /**
     * How the provider takes the setting: `effort` (low/medium/high strings), `budget` (thinking tokens),
     * `level` (Gemini 3 thinking levels, Claude ≥ 4.6 output_config.effort), or `none` (always reasons, no knob).
     */
    control: z.enum(['effort', 'budget', 'level', 'none']),
    /** Whether reasoning can be switched off entirely. */
    can_disable: z.boolean(),
    /** Smallest and largest thinking budget the provider accepts, in tokens (budget control only). */
    min_budget: z.number().int().nonnegative().optional(),
    max_budget: z.number().int().positive().optional(),
    /** Effort strings the provider accepts, in increasing order (effort and level control only). */
    efforts: z.array(z.string()).optional(),
  });

  const supportsSchema = z.strictObject({
    reasoning: z.boolean(),
    /**
     * Native JSON-Schema-constrained output (OpenAI json_schema, Anthropic output_config.format, Gemini
     * responseJsonSchema).
     */
    structured_outputs: z.boolean(),
    json_mode: z.boolean(),
    tools: z.boolean(),
    parallel_tool_calls: z.boolean(),
    images: z.boolean(),
    /** Answers with images in chat under `modalities: ["text", "image"]` (`message.images`). */
    image_output: z.boolean().optional(),
    /** Sampling knobs; reasoning models often reject them. */
    temperature: z.boolean(),
    top_p: z.boolean(),
    /** `false` where the model takes `temperature` or `top_p` but not both in one request (Claude 4.5 and 4.6). */
    temperature_with_top_p: z.boolean().optional(),
    stop: z.boolean(),
    reasoning_can_disable: z.boolean(),
  });

  const modelEntrySchema = z.strictObject({
    /** Pinned id: carries a date or version suffix. */
    id: z.string().regex(/^[a-z0-9][a-z0-9.\-_:]*$/),
    name: z.string().min(1),
    /** The model's maker, a lower-case slug: openai, anthropic, google, mistral, xai, deepseek, meta, qwen, … */
    maker: z.string().regex(/^[a-z][a-z0-9-]*$/),
    release_date: isoDate,
    context_window: z.number().int().positive(),
    max_output_tokens: z.number().int().positive(),
    supports: supportsSchema,
    reasoning: reasoningFactsSchema.optional(),
    /** Ordered: the first provider is the default one, the rest are fallbacks in that order. */
    providers: z.array(providerOfferingSchema).min(1),
    /**
     * The day the maker announced the model's retirement (its deprecation page, YYYY-MM-DD). Calls still work, each
     * with a `model_deprecated` warning; no `-latest` alias may point at the model.
     */
    deprecated_at: isoDate.optional(),
    /** The day the maker stops serving it (its shutdown or retirement date): calls after it fail at the provider. */
    retires_at: isoDate.optional(),
    /** The catalog id the maker recommends instead. */
    replacement: z.string().min(1).optional(),
    /**
     * Where the row's facts come from when not from the bundled data: `models.dev`, `openrouter`, a URL, or the file it
     * was read from. Set by `extendCatalog` and `switchyard catalog update`.
     */
    source: z.string().min(1).optional(),
    /** When those facts were last checked (YYYY-MM-DD); the bundled rows take the data's `updated`. */
    updated: isoDate.optional(),
  });

  const catalogDataSchema = z.strictObject({
    /** Date the data was last checked against the providers' pages (YYYY-MM-DD). */
    updated: isoDate,
    models: z.array(modelEntrySchema).min(1),
    /** `<family>-latest` → pinned id. Every alias ends in `-latest`. */
    aliases: z.record(lookupName.regex(/-latest$/), z.string()),
    /**
     * Short names users already type (`gpt-4o`, `claude-sonnet-4-5`) → a pinned id or an alias. Accepted as `model`,
     * never listed, so existing code keeps working.
     */
    synonyms: z.record(lookupName, z.string()),
  });

  return {
    zod: z,
    isoDate,
    pricing: pricingSchema,
    providerOffering: providerOfferingSchema,
    reasoningFacts: reasoningFactsSchema,
    supports: supportsSchema,
    modelEntry: modelEntrySchema,
    catalogData: catalogDataSchema,
  };
}

export type Pricing = Zod.infer<CatalogSchemas['pricing']>;
export type ProviderOffering = Zod.infer<CatalogSchemas['providerOffering']>;
export type ReasoningFacts = Zod.infer<CatalogSchemas['reasoningFacts']>;
export type ModelSupports = Zod.infer<CatalogSchemas['supports']>;
export type ModelEntry = Zod.infer<CatalogSchemas['modelEntry']>;
export type CatalogData = Zod.infer<CatalogSchemas['catalogData']>;

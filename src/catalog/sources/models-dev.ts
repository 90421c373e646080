import type { ModelSupports, Pricing } from '../catalog-schema.ts';
import {
  catalogIdOf,
  isoDateOf,
  positiveInteger,
  priceOf,
  type SourceModel,
  type SourceModels,
  slugOf,
} from './source-model.ts';

/** models.dev's provider ids that are a Switchyard provider under another name. */
const PROVIDER_IDS: Record<string, string> = {
  togetherai: 'together',
  'fireworks-ai': 'fireworks',
  'amazon-bedrock': 'bedrock',
  'google-vertex': 'vertex',
};

/** Providers whose models are their own: the maker is the provider. */
const MAKERS = new Set(['openai', 'anthropic', 'google', 'xai', 'deepseek', 'mistral']);

/** Whether `data` is models.dev's `api.json`: providers by id, each with `models` by id. */
export function isModelsDev(data: unknown): boolean {
  const providers = providersOf(data);
  if (!providers) return false;
  const first = Object.values(providers)[0] as { models?: unknown } | undefined;
  return typeof first?.models === 'object' && first.models !== null && !Array.isArray(first.models);
}

/** The text models of models.dev's `api.json` at the providers in `known`. */
export function fromModelsDev(data: unknown, known: ReadonlySet<string>, label = 'models.dev'): SourceModels {
  const models: SourceModel[] = [];
  let skipped = 0;
  for (const [key, provider] of Object.entries(providersOf(data) ?? {})) {
    const id = (Object.hasOwn(PROVIDER_IDS, key) ? PROVIDER_IDS[key] : undefined) ?? key;
    const listed = Object.entries((provider as { models?: Record<string, unknown> }).models ?? {});
    if (!known.has(id)) {
      skipped += listed.length;
      continue;
    }
    for (const [name, raw] of listed) {
      const model = toSourceModel(id, name, raw as ModelsDevModel, label);
      if (model) models.push(model);
      else skipped += 1;
    }
  }
  return { label, models, skipped };
}

interface ModelsDevModel {
  id?: string;
  name?: string;
  attachment?: boolean;
  reasoning?: boolean;
  tool_call?: boolean;
  structured_output?: boolean;
  temperature?: boolean;
  release_date?: string;
  last_updated?: string;
  modalities?: { input?: string[]; output?: string[] };
  cost?: ModelsDevCost & { context_over_200k?: ModelsDevCost };
  limit?: { context?: number; output?: number };
  /** `alpha`, `beta` or `deprecated`. */
  status?: string;
}

interface ModelsDevCost {
  input?: number;
  output?: number;
  cache_read?: number;
  cache_write?: number;
}

function toSourceModel(provider: string, name: string, raw: ModelsDevModel, label: string): SourceModel | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  // Embedding, image and speech models are not chat models.
  if (raw.modalities?.output && !raw.modalities.output.includes('text')) return undefined;
  const providerModel = typeof raw.id === 'string' && raw.id !== '' ? raw.id : name;
  const id = catalogIdOf(providerModel);
  if (!id) return undefined;
  const org = providerModel.includes('/') ? providerModel.slice(0, providerModel.indexOf('/')) : undefined;
  const model: SourceModel = {
    provider,
    providerModel,
    id,
    name: typeof raw.name === 'string' && raw.name !== '' ? raw.name : providerModel,
    maker: MAKERS.has(provider) ? provider : slugOf(org ?? provider),
    supports: supportsOf(raw),
  };
  const at = (field: string) => ({ label, model: `${provider}/${providerModel}`, field });
  const release = isoDateOf(raw.release_date, at('release_date'));
  if (release) model.release_date = release;
  const updated = isoDateOf(raw.last_updated, at('last_updated'));
  if (updated) model.updated = updated;
  const context = positiveInteger(raw.limit?.context);
  if (context) model.context_window = context;
  const output = positiveInteger(raw.limit?.output);
  if (output) model.max_output_tokens = Math.min(output, context ?? output);
  const pricing = pricingOf(raw.cost);
  if (pricing) model.pricing = pricing;
  if (raw.status === 'deprecated') model.deprecated = true;
  return model;
}

function supportsOf(raw: ModelsDevModel): Partial<ModelSupports> {
  const supports: Partial<ModelSupports> = {};
  const flag = (name: keyof ModelSupports, value: unknown) => {
    if (typeof value === 'boolean') supports[name] = value;
  };
  flag('reasoning', raw.reasoning);
  flag('tools', raw.tool_call);
  flag('parallel_tool_calls', raw.tool_call);
  flag('structured_outputs', raw.structured_output);
  flag('json_mode', raw.structured_output);
  flag('temperature', raw.temperature);
  flag('top_p', raw.temperature);
  if (raw.modalities?.input) supports.images = raw.modalities.input.includes('image');
  else flag('images', raw.attachment);
  return supports;
}

function pricingOf(cost: ModelsDevModel['cost']): Pricing | undefined {
  const input = priceOf(cost?.input);
  const output = priceOf(cost?.output);
  if (input === undefined || output === undefined) return undefined;
  const pricing: Pricing = { input, output, cached_input: priceOf(cost?.cache_read) ?? input };
  const write = priceOf(cost?.cache_write);
  if (write !== undefined) pricing.cache_write = write;
  const long = cost?.context_over_200k;
  const longInput = priceOf(long?.input);
  const longOutput = priceOf(long?.output);
  if (longInput !== undefined && longOutput !== undefined) {
    pricing.long_context = { threshold: 200_000, input: longInput, output: longOutput };
    const read = priceOf(long?.cache_read);
    if (read !== undefined) pricing.long_context.cached_input = read;
    const longWrite = priceOf(long?.cache_write);
    if (longWrite !== undefined) pricing.long_context.cache_write = longWrite;
  }
  return pricing;
}

function providersOf(data: unknown): Record<string, unknown> | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const wrapped = (data as { providers?: unknown }).providers;
  const providers = typeof wrapped === 'object' && wrapped !== null && !Array.isArray(wrapped) ? wrapped : data;
  return providers as Record<string, unknown>;
}

import type { ModelSupports, Pricing } from '../catalog-schema.ts';
import {
  catalogIdOf,
  dateOfSeconds,
  isoDateOf,
  positiveInteger,
  priceOf,
  type SourceModel,
  type SourceModels,
  slugOf,
} from './source-model.ts';

/** Whether `data` is OpenRouter's `/api/v1/models` answer: `{ data: [{ id: 'org/model', pricing, … }] }`. */
export function isOpenRouter(data: unknown): boolean {
  const list = (data as { data?: unknown } | null)?.data;
  if (!Array.isArray(list)) return false;
  const first = list[0] as { id?: unknown; pricing?: unknown } | undefined;
  return typeof first?.id === 'string' && typeof first.pricing === 'object';
}

interface OpenRouterModel {
  id?: string;
  name?: string;
  created?: number;
  context_length?: number;
  architecture?: { input_modalities?: string[]; output_modalities?: string[] };
  pricing?: Record<string, unknown>;
  top_provider?: { context_length?: number | null; max_completion_tokens?: number | null };
  supported_parameters?: string[];
  /** The day after which OpenRouter may remove the model (YYYY-MM-DD), or null. */
  expiration_date?: string | null;
}

/** OpenRouter's models, each an `openrouter` offering under its `org/model` id. Prices there are USD per token. */
export function fromOpenRouter(data: unknown, label = 'openrouter'): SourceModels {
  const models: SourceModel[] = [];
  let skipped = 0;
  for (const raw of (data as { data: unknown[] }).data) {
    const model = toSourceModel(raw as OpenRouterModel, label);
    if (model) models.push(model);
    else skipped += 1;
  }
  return { label, models, skipped };
}

function toSourceModel(raw: OpenRouterModel, label: string): SourceModel | undefined {
  if (typeof raw !== 'object' || raw === null || typeof raw.id !== 'string' || !raw.id.includes('/')) return undefined;
  if (raw.architecture?.output_modalities && !raw.architecture.output_modalities.includes('text')) return undefined;
  const id = catalogIdOf(raw.id);
  if (!id) return undefined;
  const model: SourceModel = {
    provider: 'openrouter',
    providerModel: raw.id,
    id,
    name: typeof raw.name === 'string' && raw.name !== '' ? raw.name : raw.id,
    maker: slugOf(raw.id.slice(0, raw.id.indexOf('/'))),
    supports: supportsOf(raw),
  };
  if (typeof raw.created === 'number' && raw.created !== 0)
    model.release_date = dateOfSeconds(raw.created, { label, model: raw.id, field: 'created' });
  const context = positiveInteger(raw.context_length) ?? positiveInteger(raw.top_provider?.context_length);
  if (context) model.context_window = context;
  const output = positiveInteger(raw.top_provider?.max_completion_tokens);
  if (output) model.max_output_tokens = Math.min(output, context ?? output);
  const pricing = pricingOf(raw.pricing);
  if (pricing) model.pricing = pricing;
  const expires = isoDateOf(raw.expiration_date, { label, model: raw.id, field: 'expiration_date' });
  if (expires) model.retires_at = expires;
  return model;
}

function supportsOf(raw: OpenRouterModel): Partial<ModelSupports> {
  const parameters = raw.supported_parameters;
  const supports: Partial<ModelSupports> = {};
  if (Array.isArray(parameters)) {
    const has = (name: string) => parameters.includes(name);
    supports.reasoning = has('reasoning') || has('include_reasoning');
    supports.tools = has('tools');
    supports.parallel_tool_calls = has('tools');
    supports.structured_outputs = has('structured_outputs');
    supports.json_mode = has('response_format');
    supports.temperature = has('temperature');
    supports.top_p = has('top_p');
    supports.stop = has('stop');
  }
  if (raw.architecture?.input_modalities) supports.images = raw.architecture.input_modalities.includes('image');
  return supports;
}

/** USD per token (as strings) → USD per 1M tokens; `undefined` when either main price is variable or missing. */
function pricingOf(prices: OpenRouterModel['pricing']): Pricing | undefined {
  const perMillion = (value: unknown) => {
    const price = priceOf(value);
    return price === undefined ? undefined : Math.round(price * 1e6 * 1e6) / 1e6;
  };
  const input = perMillion(prices?.prompt);
  const output = perMillion(prices?.completion);
  if (input === undefined || output === undefined) return undefined;
  const pricing: Pricing = { input, output, cached_input: perMillion(prices?.input_cache_read) ?? input };
  const write = perMillion(prices?.input_cache_write);
  if (write !== undefined) pricing.cache_write = write;
  return pricing;
}

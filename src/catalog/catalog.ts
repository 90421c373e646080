import { effortToBudget } from '../reasoning.ts';
import type {
  CatalogData,
  ModelEntry,
  ModelSupports,
  Pricing,
  ProviderOffering,
  ReasoningFacts,
} from './catalog-schema.ts';
import { mediaListing } from './media-listing.ts';
import type { MediaModelInfo, Modality } from './media-schema.ts';
import { lifecycleOf, type ModelLifecycle, utcDay } from './model-lifecycle.ts';

/** A reasoning model's facts, plus the thinking budgets each effort stands for on it. */
export type ModelReasoningInfo = ReasoningFacts & {
  /** `effortToBudget` of each effort on this model, clamped to the model's budget range where it has one. */
  budgets: { low: number; medium: number; high: number };
};

/** One row of `listModels()`: the OpenAI `/v1/models` entry with the catalog's facts beside it. */
export interface ModelInfo {
  id: string;
  object: 'model';
  /** Release date as a Unix timestamp in seconds (the OpenAI field). */
  created: number;
  /** The maker (openai, anthropic, google, …). */
  owned_by: string;
  name: string;
  /** Set on `-latest` aliases: the pinned id they resolve to today. */
  alias_for?: string;
  release_date: string;
  context_window: number;
  max_output_tokens: number;
  /** USD per 1M tokens at the default provider; `null` when not known. */
  pricing: Pricing | null;
  supports: ModelSupports;
  /** What the model takes in and gives out (chat models answer text). */
  modalities: { input: Modality[]; output: Modality[] };
  reasoning?: ModelReasoningInfo;
  /** Providers that serve the model, the default first. */
  providers: ProviderOffering[];
  /** `active`, `deprecated` (still served) or `retired` (its retirement day has come), today. */
  lifecycle: ModelLifecycle;
  /** Set on a model its maker deprecated: the day it did (YYYY-MM-DD). */
  deprecated_at?: string;
  /** Set on a model its maker deprecated: the day it stops serving it. */
  retires_at?: string;
  /** The model its maker recommends instead. */
  replacement?: string;
  /** Where the row's facts come from: `switchyard` (the bundled data), `models.dev`, `openrouter`, a file or URL. */
  source: string;
  /** When they were last checked (YYYY-MM-DD), when known. */
  updated: string | null;
}

export interface ModelList {
  object: 'list';
  /** The chat models. */
  data: ModelInfo[];
  /**
   * The image, speech and transcription models, as `GET /v1/models` lists them (docs/media.md). Absent in the web
   * build (browsers, Workers), where `gateway.listMediaModels()` loads them on first use.
   */
  media?: MediaModelInfo[];
}

export interface ListModelsOptions {
  /** Only models that support reasoning. */
  reasoning?: boolean;
  /** Only models that give this modality: `text` (chat, transcription), `image`, `audio` (speech). */
  output_modality?: Modality | undefined;
}

/** The model catalog: data from `models.json`, indexed once. */
export class Catalog {
  readonly data: CatalogData;
  readonly #byId = new Map<string, ModelEntry>();
  /** `<provider>/<the provider's own model name>` → the model (`openrouter/openai/gpt-4o-2024-08-06`). */
  readonly #byOffering = new Map<string, ModelEntry>();
  #list: { day: string; rows: ModelInfo[] } | undefined;

  constructor(data: CatalogData) {
    this.data = data;
    for (const entry of data.models) {
      this.#byId.set(entry.id, entry);
      for (const offering of entry.providers) this.#byOffering.set(`${offering.provider}/${offering.model}`, entry);
    }
    for (const [alias, target] of Object.entries(data.aliases)) {
      const entry = this.#byId.get(target);
      if (entry) this.#byId.set(alias, entry);
    }
    for (const [synonym, target] of Object.entries(data.synonyms)) {
      const entry = this.#byId.get(target);
      if (entry && !this.#byId.has(synonym)) this.#byId.set(synonym, entry);
    }
  }

  /** Finds a model by pinned id, `-latest` alias or synonym; `undefined` when the catalog has no such id. */
  find(id: string): ModelEntry | undefined {
    return this.#byId.get(id);
  }

  /** The model a provider serves under its own name (`findOffering('openrouter', 'openai/gpt-4o-2024-08-06')`). */
  findOffering(provider: string, providerModel: string): ModelEntry | undefined {
    return this.#byOffering.get(`${provider}/${providerModel}`);
  }

  /** Up to three known ids closest to a mistyped one. */
  suggest(id: string): string[] {
    const wanted = id.toLowerCase();
    const scored: Array<[string, number]> = [];
    for (const known of this.#byId.keys()) {
      const distance =
        known.startsWith(wanted) || wanted.startsWith(known)
          ? Math.abs(known.length - wanted.length)
          : editDistance(wanted, known);
      if (distance <= Math.max(2, Math.floor(wanted.length / 4))) scored.push([known, distance]);
    }
    scored.sort((a, b) => a[1] - b[1] || a[0].length - b[0].length);
    return scored.slice(0, 3).map(([known]) => known);
  }

  list(options: ListModelsOptions = {}): ModelList {
    // Made once a day: a model's lifecycle moves on its retirement day.
    const today = utcDay();
    if (this.#list?.day !== today) this.#list = { day: today, rows: this.#buildList(today) };
    const rows = this.#list.rows;
    const output = options.output_modality;
    const data = rows.filter(
      (model) =>
        (!options.reasoning || model.supports.reasoning) && (!output || model.modalities.output.includes(output)),
    );
    // No media model reasons: asked for reasoning models, none.
    const media = options.reasoning ? [] : mediaListing(output);
    return media ? { object: 'list', data, media } : { object: 'list', data };
  }

  #buildList(today: string): ModelInfo[] {
    const info = (id: string, entry: ModelEntry) => toModelInfo(id, entry, this.data.updated, today);
    const rows: ModelInfo[] = this.data.models.map((entry) => info(entry.id, entry));
    for (const [alias, target] of Object.entries(this.data.aliases)) {
      const entry = this.#byId.get(target);
      if (entry) rows.push({ ...info(alias, entry), alias_for: entry.id });
    }
    return rows.sort((a, b) => a.id.localeCompare(b.id));
  }
}

function toModelInfo(id: string, entry: ModelEntry, bundledDate: string, today: string): ModelInfo {
  const info: ModelInfo = {
    id,
    object: 'model',
    created: Math.floor(Date.parse(`${entry.release_date}T00:00:00Z`) / 1000),
    owned_by: entry.maker,
    name: entry.name,
    release_date: entry.release_date,
    context_window: entry.context_window,
    max_output_tokens: entry.max_output_tokens,
    pricing: entry.providers[0]!.pricing ?? null,
    supports: entry.supports,
    modalities: {
      input: entry.supports.images ? ['text', 'image'] : ['text'],
      output: entry.supports.image_output ? ['text', 'image'] : ['text'],
    },
    providers: entry.providers,
    lifecycle: lifecycleOf(entry, today),
    source: entry.source ?? 'switchyard',
    updated: entry.source === undefined ? bundledDate : (entry.updated ?? null),
  };
  if (entry.reasoning) info.reasoning = { ...entry.reasoning, budgets: effectiveBudgets(entry) };
  if (entry.deprecated_at) info.deprecated_at = entry.deprecated_at;
  if (entry.retires_at) info.retires_at = entry.retires_at;
  if (entry.replacement) info.replacement = entry.replacement;
  return info;
}

function effectiveBudgets(entry: ModelEntry): ModelReasoningInfo['budgets'] {
  const { min_budget: min = 0, max_budget: max = entry.max_output_tokens } = entry.reasoning ?? {};
  const budget = (effort: 'low' | 'medium' | 'high') =>
    Math.min(max, Math.max(min, effortToBudget(effort, entry.max_output_tokens)));
  return { low: budget('low'), medium: budget('medium'), high: budget('high') };
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 8) return Infinity;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

import { applyExtension, type CatalogRow } from './apply-extension.ts';
import type { Catalog } from './catalog.ts';
import { catalogSchemas, type ModelEntry, type Pricing, type ProviderOffering } from './catalog-schema.ts';
import type { ModelProfile } from './model-profile.ts';
import type { SourceModel, SourceModels } from './sources/source-model.ts';

/** One line of the diff `catalog update` prints. */
export interface CatalogChange {
  id: string;
  kind: 'added' | 'changed';
  /** For `changed`: each field that moved (`openai pricing.input`, `context_window`). */
  fields: Array<{ field: string; from: unknown; to: unknown }>;
  /** For `added`: the row as it will be. */
  entry?: ModelEntry;
}

export interface CatalogUpdate {
  /** The rows to write: the previous file's, changed, then the new models. */
  rows: CatalogRow[];
  changes: CatalogChange[];
  counts: { added: number; changed: number; unchanged: number; skipped: number };
}

export interface UpdateCatalogOptions {
  /** The catalog the rows extend (the bundled one). */
  base: Catalog;
  /** The rows of the file being updated, if it exists: their hand-written fields are kept. */
  previous?: CatalogRow[];
  source: SourceModels;
  /** What a provider assumes of a model it serves (its `uncatalogued` profile), for the facts a list does not give. */
  profileOf(provider: string): ModelProfile;
  /** YYYY-MM-DD, the date of rows whose source gives none. */
  today: string;
}

/**
 * Takes from a public list what it knows better than a hand-curated catalog: new models, prices, limits and release
 * dates. What people curate (reasoning control and effort levels, capability flags of known models, provider order,
 * aliases) is never taken from a list. Limits and dates come only from a model's default provider; prices from each.
 * A retirement date is taken as the list gives it; a list that only marks a model deprecated dates it when the
 * catalog has no date of its own (the maker's page is the better source).
 */
export function updateCatalog(options: UpdateCatalogOptions): CatalogUpdate {
  const current = applyExtension(options.previous ?? [], { base: options.base });
  const rows = new Map((options.previous ?? []).map((row) => [row.id, structuredClone(row)]));
  const added = new Map<string, ModelEntry>();
  const changed = new Map<string, CatalogChange>();
  let unchanged = 0;
  let skipped = options.source.skipped;

  for (const model of options.source.models) {
    const listed = current.findOffering(model.provider, model.providerModel);
    const entry = listed ?? current.find(model.id);
    if (!entry) {
      if (!addModel(added, model, options)) skipped += 1;
      continue;
    }
    if (!listed && !sameModel(entry, model)) {
      skipped += 1;
      continue;
    }
    const fields = changesOf(entry, model, options.today);
    if (fields.length === 0) {
      unchanged += 1;
      continue;
    }
    const row = rows.get(entry.id) ?? { id: entry.id };
    rows.set(entry.id, applyChanges(row, entry, model, fields, options));
    const change = changed.get(entry.id) ?? { id: entry.id, kind: 'changed' as const, fields: [] };
    change.fields.push(...fields);
    changed.set(entry.id, change);
  }

  const newRows = [...added.values()].sort((a, b) => a.id.localeCompare(b.id));
  return {
    rows: [...rows.values(), ...newRows],
    changes: [
      ...changed.values(),
      ...newRows.map((entry) => ({ id: entry.id, kind: 'added' as const, fields: [], entry })),
    ],
    counts: { added: newRows.length, changed: changed.size, unchanged, skipped },
  };
}

/** What the list says differently of one offering: its prices, and the model's limits and date at its default. */
function changesOf(entry: ModelEntry, model: SourceModel, today: string): CatalogChange['fields'] {
  const offering = entry.providers.find((candidate) => candidate.provider === model.provider);
  const fields: CatalogChange['fields'] = [];
  if (!offering) {
    if (model.pricing) fields.push({ field: `${model.provider} offering`, from: undefined, to: model.providerModel });
    return fields;
  }
  for (const [path, to] of pricePaths(model.pricing)) {
    const from = valueAt(offering.pricing, path);
    if (to !== from) fields.push({ field: `${model.provider} pricing.${path}`, from, to });
  }
  if (entry.providers[0]!.provider === model.provider) {
    for (const name of ['context_window', 'max_output_tokens', 'release_date', 'retires_at'] as const) {
      const to = model[name];
      if (to !== undefined && to !== entry[name]) fields.push({ field: name, from: entry[name], to });
    }
    if (model.deprecated && entry.deprecated_at === undefined)
      fields.push({ field: 'deprecated_at', from: undefined, to: model.updated ?? today });
  }
  return fields;
}

function applyChanges(
  row: CatalogRow,
  entry: ModelEntry,
  model: SourceModel,
  fields: CatalogChange['fields'],
  options: UpdateCatalogOptions,
): CatalogRow {
  const offerings = row.providers ?? [];
  let offering = offerings.find((candidate) => candidate.provider === model.provider);
  if (!offering) {
    const known = entry.providers.some((candidate) => candidate.provider === model.provider);
    offering = known ? { provider: model.provider } : { provider: model.provider, model: model.providerModel };
    offerings.push(offering);
  }
  for (const { field, to } of fields) {
    const price = / pricing\.(.+)$/.exec(field)?.[1];
    if (price) offering.pricing = withValueAt(offering.pricing ?? {}, price, to);
    else if (field.endsWith(' offering')) offering.pricing = { ...model.pricing };
    else Object.assign(row, { [field]: to });
  }
  return { ...row, providers: offerings, source: options.source.label, updated: model.updated ?? options.today };
}

/** Adds a model the catalog does not have, as a whole row; `false` when the list lacks what a row needs. */
function addModel(added: Map<string, ModelEntry>, model: SourceModel, options: UpdateCatalogOptions): boolean {
  const offering: ProviderOffering = { provider: model.provider, model: model.providerModel };
  if (model.pricing) offering.pricing = model.pricing;
  const known = added.get(model.id);
  if (known) {
    if (known.providers.some((candidate) => candidate.provider === model.provider)) return false;
    // The maker's own API first, as in the bundled catalog.
    if (model.provider === known.maker) known.providers.unshift(offering);
    else known.providers.push(offering);
    return true;
  }
  if (model.context_window === undefined || model.release_date === undefined) return false;
  const profile = options.profileOf(model.provider);
  const supports = { ...profile.supports, ...model.supports };
  const reasoning = supports.reasoning ? profile.reasoning : undefined;
  supports.reasoning_can_disable = reasoning?.can_disable ?? false;
  const entry = catalogSchemas().modelEntry.safeParse({
    id: model.id,
    name: model.name,
    maker: model.maker,
    release_date: model.release_date,
    context_window: model.context_window,
    max_output_tokens: model.max_output_tokens ?? Math.min(model.context_window, profile.max_output_tokens),
    supports,
    ...(reasoning ? { reasoning } : {}),
    providers: [offering],
    ...(model.deprecated ? { deprecated_at: model.updated ?? options.today } : {}),
    ...(model.retires_at ? { retires_at: model.retires_at } : {}),
    source: options.source.label,
    updated: model.updated ?? options.today,
  });
  if (!entry.success) return false;
  added.set(model.id, entry.data);
  return true;
}

/**
 * Whether a list's model that only shares its id with a catalog model is that model: same maker, and not already
 * offered by that provider under another name (which would be another listing, with other prices).
 */
function sameModel(entry: ModelEntry, model: SourceModel): boolean {
  const offering = entry.providers.find((candidate) => candidate.provider === model.provider);
  return entry.maker === model.maker && (offering === undefined || offering.model === model.providerModel);
}

/** Each price a list gives, by path (`input`, `long_context.output`). */
function pricePaths(pricing: Pricing | undefined): Array<[string, number]> {
  const paths: Array<[string, number]> = [];
  for (const [key, value] of Object.entries(pricing ?? {})) {
    if (typeof value === 'number') paths.push([key, value]);
    else for (const [inner, price] of Object.entries(value ?? {})) paths.push([`${key}.${inner}`, price as number]);
  }
  return paths;
}

function valueAt(pricing: Pricing | undefined, path: string): unknown {
  const [key, inner] = path.split('.') as [keyof Pricing, string | undefined];
  const value = pricing?.[key];
  return inner === undefined ? value : (value as Record<string, unknown> | undefined)?.[inner];
}

/** A partial price with one path set; a tier is copied before it is changed. */
function withValueAt<T extends object>(pricing: T, path: string, value: unknown): T {
  const [key, inner] = path.split('.') as [keyof T & string, string | undefined];
  if (inner === undefined) return { ...pricing, [key]: value };
  return { ...pricing, [key]: { ...(pricing[key] as object | undefined), [inner]: value } };
}

import type * as Zod from 'zod';
import { CatalogError } from '../errors.ts';
import { lazyNodeBuiltin } from '../internal/node-builtin.ts';
import { Catalog } from './catalog.ts';
import { catalogSchemas, isPrototypeMember, type ModelEntry, type ProviderOffering } from './catalog-schema.ts';
import { defaultCatalog } from './default-catalog.ts';
import { type CatalogExtension, type CatalogRow, extensionSchemas, type OfferingRow } from './extension-schema.ts';

const nodeFs = lazyNodeBuiltin('node:fs', 'Reading a catalog extension from a file');

export type { CatalogExtension, CatalogRow };

export interface ExtendCatalogOptions {
  /** The catalog the rows change or add to. Default: the bundled one. */
  base?: Catalog;
  /** Named in errors and as the rows' default `source` (a path given as `extension` names itself). */
  source?: string;
}

/**
 * `extendCatalog` once zod is loaded: the catalog refresh's, which waits for zod (`loadZod`) in the background. Apart
 * from extend-catalog.ts, so that a page's bundle, which the main entry's `extendCatalog` reaches, does not carry it.
 */
export function applyExtension(extension: CatalogExtension | string, options: ExtendCatalogOptions = {}): Catalog {
  const source = typeof extension === 'string' ? extension : options.source;
  const raw = typeof extension === 'string' ? readJson(extension) : extension;
  refusePrototypeNames(raw, source);
  const parsed = extensionSchemas().catalogExtension.safeParse(raw);
  if (!parsed.success) throw schemaError(parsed.error, source, raw);
  const { models: rows, ...extra } = Array.isArray(parsed.data) ? { models: parsed.data } : parsed.data;
  const rowSource = ('source' in extra ? extra.source : undefined) ?? (source ? `file:${source}` : 'user');
  const rowDate = 'updated' in extra ? extra.updated : undefined;

  const base = options.base ?? defaultCatalog();
  const models = new Map(base.data.models.map((entry) => [entry.id, entry]));
  rows.forEach((row, index) => {
    const entry = applyRow(base, models, row, { source, row: index });
    models.set(entry.id, { ...entry, source: row.source ?? rowSource, ...dated(row.updated ?? rowDate) });
  });
  const data = {
    updated: base.data.updated,
    models: [...models.values()],
    aliases: { ...base.data.aliases, ...('aliases' in extra ? extra.aliases : {}) },
    synonyms: { ...base.data.synonyms, ...('synonyms' in extra ? extra.synonyms : {}) },
  };
  for (const [name, target] of [...Object.entries(data.aliases), ...Object.entries(data.synonyms)]) {
    if (!models.has(target) && !Object.hasOwn(data.aliases, target))
      throw new CatalogError(`${where({ source })}"${name}" points to "${target}", which the catalog does not have.`, {
        ...(source ? { source } : {}),
        field: name,
      });
  }
  for (const alias of Object.keys(data.aliases)) data.aliases[alias] = pinnedIdOf(alias, data.aliases, source);
  return new Catalog(data);
}

/**
 * The model id an alias ends at, through aliases of aliases; a `CatalogError` for a cycle (`a-latest` →
 * `b-latest` → `a-latest`), which would leave every alias of it pointing nowhere.
 */
function pinnedIdOf(alias: string, aliases: Record<string, string>, source: string | undefined): string {
  const path = [alias];
  let target = aliases[alias]!;
  while (Object.hasOwn(aliases, target)) {
    if (path.includes(target)) {
      const cycle = [...path.slice(path.indexOf(target)), target].map((name) => `"${name}"`).join(' → ');
      throw new CatalogError(`${where({ source })}aliases: ${cycle} is a cycle; an alias must end at a model id.`, {
        ...definedSource(source),
        field: `aliases.${alias}`,
      });
    }
    path.push(target);
    target = aliases[target]!;
  }
  return target;
}

/**
 * Aliases and synonyms named like a member of every object (`__proto__`, `constructor`, `toString`): refused before
 * the schema reads them, which would drop `__proto__` without a word.
 */
function refusePrototypeNames(raw: unknown, source: string | undefined): void {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return;
  for (const kind of ['aliases', 'synonyms'] as const) {
    const names = (raw as Record<string, unknown>)[kind];
    if (typeof names !== 'object' || names === null) continue;
    const name = Object.keys(names).find(isPrototypeMember);
    if (name === undefined) continue;
    throw new CatalogError(
      `${where({ source })}${kind}.${name}: "${name}" cannot be ${kind === 'aliases' ? 'an alias' : 'a synonym'}: ` +
        'it is a member of every JavaScript object (Object.prototype); choose another name.',
      { ...definedSource(source), field: `${kind}.${name}` },
    );
  }
}

function applyRow(
  base: Catalog,
  models: Map<string, ModelEntry>,
  row: CatalogRow,
  at: { source: string | undefined; row: number },
): ModelEntry {
  const fail = (field: string, message: string) =>
    new CatalogError(`${where(at, row.id)}${field}: ${message}`, { ...definedSource(at.source), row: at.row, field });
  const known = models.get(row.id) ?? base.find(row.id);
  if (known && row.base !== undefined)
    throw fail('base', `"${row.id}" is already in the catalog; base is for a new model built on another.`);
  const template = row.base === undefined ? known : (models.get(row.base) ?? base.find(row.base));
  if (row.base !== undefined && !template) throw fail('base', `"${row.base}" is not in the catalog.`);

  const { base: _base, supports, providers, source: _source, updated: _updated, ...fields } = row;
  const merged = {
    ...template,
    ...(row.base === undefined ? {} : { name: row.id, source: undefined, updated: undefined }),
    ...fields,
    id: known?.id ?? row.id,
    supports: { ...template?.supports, ...supports },
    providers: mergeOfferings(row.base === undefined ? (known?.providers ?? []) : [], providers ?? []),
  };
  const checked = catalogSchemas().modelEntry.safeParse(merged);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw fail(fieldPath(issue.path), issue.message);
  }
  return checked.data;
}

/** Each row offering replaces the one of its provider (price fields one by one), or comes after the others. */
function mergeOfferings(offerings: readonly ProviderOffering[], changes: ReadonlyArray<OfferingRow>): unknown[] {
  const merged: Array<Record<string, unknown>> = offerings.map((offering) => ({ ...offering }));
  for (const change of changes) {
    const existing = merged.find((offering) => offering.provider === change.provider);
    if (!existing) {
      merged.push({ ...change });
      continue;
    }
    const pricing = change.pricing && { ...(existing.pricing as object | undefined), ...change.pricing };
    Object.assign(existing, change, pricing ? { pricing } : {});
  }
  return merged;
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = nodeFs().readFileSync(path, 'utf8');
  } catch (error) {
    throw new CatalogError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).`, {
      source: path,
    });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CatalogError(`${path}: not JSON (${(error as Error).message}).`, { source: path });
  }
}

function schemaError(error: Zod.ZodError, source: string | undefined, extension: unknown): CatalogError {
  // A union reports each branch; the one that got furthest into the data says the most.
  const issues = error.issues.flatMap((issue) =>
    issue.code === 'invalid_union'
      ? issue.errors.flat().map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }))
      : [issue],
  );
  const issue = issues.sort((a, b) => b.path.length - a.path.length)[0] ?? error.issues[0]!;
  const path = issue.path[0] === 'models' ? issue.path.slice(1) : issue.path;
  const row = typeof path[0] === 'number' ? path[0] : undefined;
  const field = fieldPath(row === undefined ? path : path.slice(1));
  const rows = Array.isArray(extension) ? extension : (extension as { models?: unknown[] } | undefined)?.models;
  const id = row === undefined ? undefined : (rows?.[row] as { id?: unknown } | undefined)?.id;
  return new CatalogError(
    `${where({ source, ...(row === undefined ? {} : { row }) }, typeof id === 'string' ? id : undefined)}` +
      `${field ? `${field}: ` : ''}${issue.message}`,
    { ...definedSource(source), ...(row === undefined ? {} : { row }), ...(field ? { field } : {}) },
  );
}

/** `models.json: row 3 (my-model): ` — the start of every message. */
function where(at: { source?: string | undefined; row?: number }, id?: string): string {
  const parts = [at.source, at.row === undefined ? undefined : `row ${at.row}${id ? ` (${id})` : ''}`];
  const named = parts.filter(Boolean).join(': ');
  return named ? `${named}: ` : '';
}

function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index ? '.' : ''}${String(key)}`))
    .join('');
}

function definedSource(source: string | undefined): { source?: string } {
  return source === undefined ? {} : { source };
}

function dated(updated: string | undefined): { updated?: string } {
  return updated === undefined ? {} : { updated };
}

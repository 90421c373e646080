import { CatalogError } from '../../errors.ts';
import { isRealDate, type ModelSupports, type Pricing } from '../catalog-schema.ts';

/**
 * One model at one provider as a public model list describes it, in the catalog's terms. Only what the list says is
 * set: a field left out is not known there, and the catalog's own value (or the provider's profile) stands.
 */
export interface SourceModel {
  /** A Switchyard provider id (`openai`, `openrouter`, …). */
  provider: string;
  /** The name that provider's API takes. */
  providerModel: string;
  /** The catalog id a new model gets: the provider's name as an id (`meta-llama/llama-4:free` → `llama-4:free`). */
  id: string;
  name: string;
  maker: string;
  release_date?: string;
  /** When the list last changed the model's facts (YYYY-MM-DD). */
  updated?: string;
  context_window?: number;
  max_output_tokens?: number;
  pricing?: Pricing;
  supports: Partial<ModelSupports>;
  /** The list marks the model deprecated (models.dev's `status`), without saying since when. */
  deprecated?: boolean;
  /** The day the list says the model goes away (OpenRouter's `expiration_date`). */
  retires_at?: string;
}

/** What a public model list gave: its models at providers Switchyard can call, and how many it had for others. */
export interface SourceModels {
  /** `models.dev`, `openrouter`, or the URL or file read. */
  label: string;
  models: SourceModel[];
  /** Models at providers this Switchyard has no adapter for, or without the facts a catalog row needs. */
  skipped: number;
}

/** A provider's model name as a catalog id: lower case, the part after the last `/`, other characters as `-`. */
export function catalogIdOf(providerModel: string): string {
  const last = providerModel.slice(providerModel.lastIndexOf('/') + 1).toLowerCase();
  return last.replace(/[^a-z0-9.\-_:]/g, '-').replace(/^[^a-z0-9]+/, '');
}

/** A maker or provider name as a catalog slug (`Meta-Llama` → `meta-llama`). */
export function slugOf(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '');
  return slug || 'unknown';
}

/** Where a list's value was read, for a `CatalogError`: the list, the model, the field. */
export interface ListPlace {
  label: string;
  model: string;
  field: string;
}

/**
 * `YYYY-MM-DD` from `YYYY-MM-DD`, `YYYY-MM` or an ISO time; `undefined` for anything else. A date no calendar has
 * (`9999-99-99`) is a `CatalogError` naming the list, the model and the field.
 */
export function isoDateOf(value: unknown, at: ListPlace): string | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d{4})-(\d{2})(?:-(\d{2}))?/.exec(value);
  if (!match) return undefined;
  const date = `${match[1]}-${match[2]}-${match[3] ?? '01'}`;
  if (!isRealDate(date)) throw listError(at, `${JSON.stringify(value)} is not a date a calendar has`);
  return date;
}

/** The last second of 9999: past it a date is not `YYYY-MM-DD` (and past 8.64e12 not a time JavaScript has). */
const LAST_SECOND = Date.UTC(9999, 11, 31, 23, 59, 59) / 1000;

/**
 * `YYYY-MM-DD` of a Unix time in seconds; a `CatalogError` naming the list, the model and the field for one outside
 * 1970–9999 (a time in milliseconds, or garbage), where `Date` would throw a bare "Invalid time value".
 */
export function dateOfSeconds(seconds: number, at: ListPlace): string {
  if (!(Number.isFinite(seconds) && seconds >= 0 && seconds <= LAST_SECOND))
    throw listError(at, `${seconds} is not a time in seconds between 1970 and 9999`);
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

function listError(at: ListPlace, problem: string): CatalogError {
  return new CatalogError(`${at.label}: model "${at.model}": ${at.field}: ${problem}.`, {
    source: at.label,
    field: at.field,
  });
}

/** A positive whole number, or `undefined`. */
export function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** A price that is a finite number ≥ 0, or `undefined` (lists mark variable prices with -1). */
export function priceOf(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number >= 0 ? number : undefined;
}

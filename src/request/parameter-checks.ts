import { InvalidRequestError } from '../errors.ts';
import { type FieldNotes, noteUnknownFields } from './unknown-fields.ts';

/**
 * The checks of the parameter table's simpler rows, and their building blocks: each throws a 400 naming the
 * parameter. Kept apart from the table so that the structured checks (`validate-parts.ts`) and the table can both
 * use them without importing each other.
 */

export function numberIn(param: string, min: number, max: number) {
  return (value: unknown) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
      fail(`"${param}" must be a number from ${min} to ${max} (got ${JSON.stringify(value)}).`, param);
    }
  };
}

export function integer(param: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: unknown) => {
    if (Number.isInteger(value) && (value as number) >= min && (value as number) <= max) return;
    const range =
      min === Number.MIN_SAFE_INTEGER ? '' : max === Number.MAX_SAFE_INTEGER ? ` ≥ ${min}` : ` from ${min} to ${max}`;
    fail(`"${param}" must be a whole number${range} (got ${JSON.stringify(value)}).`, param);
  };
}

export function boolean(param: string) {
  return (value: unknown) => {
    if (typeof value !== 'boolean') fail(`"${param}" must be true or false (got ${JSON.stringify(value)}).`, param);
  };
}

export function string(param: string, what = 'a string') {
  return (value: unknown) => {
    if (typeof value !== 'string') fail(`"${param}" must be ${what}.`, param);
  };
}

export function stringArray(param: string, what: string) {
  return (value: unknown) => {
    if (!isStringArray(value)) fail(`"${param}" must be ${what}.`, param);
  };
}

export function object(param: string) {
  return (value: unknown) => {
    if (!isObject(value)) fail(`"${param}" must be an object.`, param);
  };
}

export function oneOf(param: string, allowed: readonly unknown[]) {
  return (value: unknown) => {
    if (!allowed.includes(value))
      fail(`"${param}" must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)}).`, param);
  };
}

/**
 * `web_search_options`: OpenAI's (`search_context_size`, `user_location`) and Switchyard's own beside them
 * (`allowed_domains`, `blocked_domains`, `max_uses`), which the providers whose search takes them receive.
 */
export function webSearchOptions(value: unknown): void {
  const param = 'web_search_options';
  object(param)(value);
  const options = value as Record<string, unknown>;
  if (options.search_context_size != null)
    oneOf(`${param}.search_context_size`, ['low', 'medium', 'high'])(options.search_context_size);
  if (options.user_location != null) object(`${param}.user_location`)(options.user_location);
  for (const key of ['allowed_domains', 'blocked_domains'])
    if (options[key] != null) stringArray(`${param}.${key}`, 'an array of domains')(options[key]);
  if (options.max_uses != null) integer(`${param}.max_uses`, 1)(options.max_uses);
}

/** An array whose every item is one of `allowed`. */
export function someOf(param: string, allowed: readonly unknown[]) {
  return (value: unknown) => {
    if (!Array.isArray(value) || !value.every((item) => allowed.includes(item)))
      fail(`"${param}" must be an array of ${allowed.map((item) => JSON.stringify(item)).join(', ')}.`, param);
  };
}

/** `hedge`: `{ afterMs: <ms> }`, `{ percentile: <1-100>, afterMs?: <ms> }`, or `false`. */
export function hedge(value: unknown): void {
  if (value === false) return;
  const { afterMs, percentile, ...others } = isObject(value) ? value : { others: true };
  const ms = (given: unknown) => typeof given === 'number' && Number.isFinite(given) && given >= 0;
  const valid =
    Object.keys(others).length === 0 &&
    (percentile === undefined
      ? ms(afterMs)
      : typeof percentile === 'number' &&
        percentile > 0 &&
        percentile <= 100 &&
        (afterMs === undefined || ms(afterMs)));
  if (!valid) {
    const shape = '{ afterMs: <milliseconds ≥ 0> }, { percentile: <1–100>, afterMs?: <milliseconds> } or false';
    fail(`"hedge" must be ${shape} (got ${JSON.stringify(value)}).`, 'hedge');
  }
}

export function modelReference(value: unknown): void {
  if (typeof value !== 'string' || value.trim() === '') {
    fail(
      '"model" is required: a model id such as "gpt-4o-latest" (listModels() lists them) or ' +
        '"switchyard/deployment/<id>".',
      'model',
    );
  }
}

export function stop(value: unknown): void {
  if (typeof value !== 'string' && !isStringArray(value))
    fail('"stop" must be a string or an array of strings.', 'stop');
}

const STREAM_OPTIONS_FIELDS = new Set(['include_usage', 'include_obfuscation']);

export function streamOptions(value: unknown, notes?: FieldNotes): void {
  if (!isObject(value)) fail('"stream_options" must be an object such as { "include_usage": true }.', 'stream_options');
  noteUnknownFields(value, STREAM_OPTIONS_FIELDS, () => ['stream_options'], notes);
  const include = value.include_usage;
  if (include != null && typeof include !== 'boolean') {
    fail(
      `"stream_options.include_usage" must be true or false (got ${JSON.stringify(include)}).`,
      'stream_options.include_usage',
    );
  }
}

export function metadata(value: unknown): void {
  if (!isObject(value)) fail('"metadata" must be an object of string values.', 'metadata');
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') fail(`metadata.${key} must be a string (got ${typeof item}).`, `metadata.${key}`);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: validation reads the caller's untyped JSON, checking each field it uses.
export function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

export function fail(message: string, param: string | null): never {
  throw new InvalidRequestError(message, param);
}

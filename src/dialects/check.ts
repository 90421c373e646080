import { InvalidRequestError } from '../errors.ts';

/**
 * The checks the dialects run on a body before translating it: each throws a 400 naming the field by its path
 * (`input[3].content[0].text`, `messages[2].role`), so a malformed body never reaches code that would trip on it.
 * `null` stands for an absent optional field, as the SDKs send it.
 */

/** The most entries any list of a dialect body may hold (input items, messages, content blocks, tools, …). */
const MAX_ITEMS = 10_000;

export type Body = Record<string, unknown>;

export function fail(at: string, what: string, code = 'invalid_request'): never {
  throw new InvalidRequestError(`${at}: ${what}`, at, code);
}

export function isRecord(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` as an object (not a list, not null). */
export function record(value: unknown, at: string): Body {
  if (!isRecord(value)) fail(at, `must be an object (got ${kind(value)}).`);
  return value;
}

/** `value` as a list of at most `MAX_ITEMS` entries. */
export function list(value: unknown, at: string): unknown[] {
  if (!Array.isArray(value)) fail(at, `must be a list (got ${kind(value)}).`);
  if (value.length > MAX_ITEMS)
    fail(at, `holds ${value.length} entries; a request may hold at most ${MAX_ITEMS} in one list.`, 'too_many_items');
  return value;
}

export function string(value: unknown, at: string): string {
  if (typeof value !== 'string') fail(at, `must be a string (got ${kind(value)}).`);
  return value;
}

/** A string naming something: not empty. */
export function name(value: unknown, at: string): string {
  if (string(value, at) === '') fail(at, 'must not be empty.');
  return value as string;
}

export function number(value: unknown, at: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(at, `must be a number (got ${kind(value)}).`);
  return value;
}

export function integer(value: unknown, at: string, min: number): number {
  if (!Number.isSafeInteger(value) || (value as number) < min)
    fail(at, `must be a whole number ≥ ${min} (got ${kind(value)}).`);
  return value as number;
}

export function boolean(value: unknown, at: string): boolean {
  if (typeof value !== 'boolean') fail(at, `must be true or false (got ${kind(value)}).`);
  return value;
}

export function oneOf<T extends string>(value: unknown, at: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T))
    fail(at, `must be one of ${allowed.map((item) => `"${item}"`).join(', ')} (got ${kind(value)}).`);
  return value as T;
}

/** Runs `check` on `body[key]` unless it is absent or null. */
export function optional<T>(
  body: Body,
  key: string,
  at: string,
  check: (value: unknown, at: string) => T,
): T | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  return check(value, at ? `${at}.${key}` : key);
}

/** A list of strings. */
export function strings(value: unknown, at: string): string[] {
  const items = list(value, at);
  for (let index = 0; index < items.length; index++) string(items[index], `${at}[${index}]`);
  return items as string[];
}

/** `cache_control`: absent, null, or an object. */
export function cacheControl(block: Body, at: string): void {
  optional(block, 'cache_control', at, record);
}

/** What a value is, for a message: its JSON type, and a short value. */
function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return value.length > 40 ? 'a string' : JSON.stringify(value);
  if (typeof value === 'number') return Math.abs(value) < 1e15 ? String(value) : 'a number';
  return typeof value === 'object' ? 'an object' : typeof value;
}

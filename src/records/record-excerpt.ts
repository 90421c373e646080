import { wellFormed } from './record-text.ts';

/**
 * What the record of a call no provider was sent (refused: invalid, not allowed, over a budget, too long for every
 * model) keeps of the request: an excerpt, enough to see what was asked, not the prompt. Such a call costs its
 * caller nothing, so a whole prompt recorded for each would let anyone fill the store for free.
 */
export const EXCERPT = {
  /** Characters kept of each string (and of each object key). */
  text: 500,
  /** Items kept of each list, and members of each object. */
  items: 10,
  /** Levels of nesting kept: deeper values become a marker. */
  depth: 8,
  /** Characters of strings and keys kept in one field in all: past it, values become a marker. */
  budget: 6_000,
} as const;

const LEFT_OUT = '[not stored: a refused call keeps an excerpt]';

/**
 * A bounded copy of a JSON value (JSON's rules: functions and `undefined` left out of objects, `null` in lists),
 * reading no more of it than it keeps: strings cut, lists and objects to their first items, nesting and the total
 * length bounded. `onCut` is told that something was left out.
 */
export function excerptOf(value: unknown, onCut: () => void): unknown {
  const state = { left: EXCERPT.budget, onCut };
  return copy(value, 1, state);
}

interface ExcerptState {
  left: number;
  onCut: () => void;
}

function copy(value: unknown, depth: number, state: ExcerptState): unknown {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string') return text(value, state);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return undefined;
  if (state.left <= 0 || depth > EXCERPT.depth) {
    state.onCut();
    return LEFT_OUT;
  }
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === 'function')
    return copy(
      safely(() => json.call(value)),
      depth,
      state,
    );
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    const kept = Math.min(value.length, EXCERPT.items);
    for (let index = 0; index < kept && state.left > 0; index++)
      items.push(copy(value[index], depth + 1, state) ?? null);
    if (items.length < value.length) state.onCut();
    return items;
  }
  const out: Record<string, unknown> = {};
  let members = 0;
  // for…in stops where the excerpt does: an object of a million keys is not listed whole.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (members === EXCERPT.items || state.left <= 0) {
      state.onCut();
      break;
    }
    const item = copy((value as Record<string, unknown>)[key], depth + 1, state);
    if (item === undefined) continue;
    out[text(key, state)] = item;
    members++;
  }
  return out;
}

function text(value: string, state: ExcerptState): string {
  const limit = Math.max(0, Math.min(EXCERPT.text, state.left));
  state.left -= Math.min(value.length, limit);
  if (value.length <= limit) return wellFormed(value);
  state.onCut();
  // Never split a surrogate pair: half of one would be a lone surrogate.
  const code = value.charCodeAt(limit - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
  return `${wellFormed(value.slice(0, end))}… [${value.length - end} of ${value.length} characters not stored]`;
}

function safely(read: () => unknown): unknown {
  try {
    return read();
  } catch {
    return LEFT_OUT;
  }
}

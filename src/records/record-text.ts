/** Longest text a record keeps per field, in UTF-16 code units (JavaScript string length): about 1 MB of ASCII. */
export const DEFAULT_MAX_TEXT_LENGTH = 1_000_000;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The text with lone surrogates replaced by U+FFFD. SQLite stores them so (as UTF-8 cannot hold them), and
 * `encodeURIComponent` throws on them: a record's ids must read the same from its JSON, its columns and a URL.
 */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

/** `text` cut to `limit` characters, with a marker saying how much was cut; `cut` is told the cut field's length. */
export function capText(text: string, limit: number, onCut: (length: number) => void): string {
  if (text.length <= limit) return text;
  onCut(text.length);
  // Never split a surrogate pair: half of one would be a lone surrogate.
  const end = isHighSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit;
  const marker = `… [truncated by switchyard: ${text.length - end} of ${text.length} characters not stored]`;
  return `${text.slice(0, end)}${marker}`;
}

/**
 * Levels of nesting a record keeps in a copied value. Deeper values are replaced by a marker: a value JSON can copy
 * may still be too deep for `JSON.stringify` when a sink writes it (a fuzzed request 20,000 levels deep was).
 */
export const MAX_RECORD_DEPTH = 200;

/**
 * Caps every string inside a freshly copied JSON value, in place (objects and arrays are the copy's own), and
 * returns it; values nested deeper than `MAX_RECORD_DEPTH` become a marker. `onCut` is told the path of each cut
 * string, and the root of a value cut for its depth.
 * Iterative, so depth cannot overflow the stack.
 */
export function capStrings(
  value: unknown,
  limit: number,
  onCut: (path: string, tooDeep: boolean) => void,
  root = '',
): unknown {
  if (typeof value === 'string') return capText(value, limit, () => onCut(root, false));
  const pending: Level[] = [];
  if (typeof value === 'object' && value !== null)
    pending.push({ holder: value as Record<string, unknown>, up: undefined, key: root, depth: 1 });
  for (let level = pending.pop(); level; level = pending.pop()) {
    const { holder, depth } = level;
    for (const key of Object.keys(holder)) {
      const item = (holder as Record<string, unknown>)[key];
      if (typeof item === 'string') {
        if (item.length > limit)
          (holder as Record<string, unknown>)[key] = capText(item, limit, () => onCut(pathOf(level, key), false));
      } else if (typeof item === 'object' && item !== null) {
        if (depth < MAX_RECORD_DEPTH)
          pending.push({ holder: item as Record<string, unknown>, up: level, key, depth: depth + 1 });
        else {
          (holder as Record<string, unknown>)[key] = `[nested deeper than ${MAX_RECORD_DEPTH} levels: not stored]`;
          // The path would be hundreds of segments long: the field it starts from says enough.
          onCut(root, true);
        }
      }
    }
  }
  return value;
}

/** One object or array being walked: where it sits, so that a path is written only for a string that is cut. */
interface Level {
  holder: Record<string, unknown> | unknown[];
  /** The level holding this one; none at the root, whose `key` is the root's path. */
  up: Level | undefined;
  key: string;
  depth: number;
}

/** The path of `key` inside `level`: `input_messages[3].content`. */
function pathOf(level: Level, key: string): string {
  let path = Array.isArray(level.holder) ? `[${key}]` : `.${key}`;
  for (let at: Level | undefined = level; at; at = at.up) {
    if (!at.up) return `${at.key}${path}`;
    path = `${Array.isArray(at.up.holder) ? `[${at.key}]` : `.${at.key}`}${path}`;
  }
  return path;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

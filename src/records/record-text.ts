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
  return `${text.slice(0, end)}… [truncated by switchyard: ${text.length - end} of ${text.length} characters not stored]`;
}

/**
 * Caps every string inside a freshly copied JSON value, in place (objects and arrays are the copy's own), and
 * returns it. `onCut` is told the path of each cut string. Iterative, so depth cannot overflow the stack.
 */
export function capStrings(value: unknown, limit: number, onCut: (path: string) => void, root = ''): unknown {
  if (typeof value === 'string') return capText(value, limit, () => onCut(root));
  const pending: Array<{ holder: Record<string, unknown> | unknown[]; path: string }> = [];
  if (typeof value === 'object' && value !== null) pending.push({ holder: value as Record<string, unknown>, path: root });
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { holder, path } = next;
    for (const key of Object.keys(holder)) {
      const item = (holder as Record<string, unknown>)[key];
      const pathOf = () => (Array.isArray(holder) ? `${path}[${key}]` : `${path}.${key}`);
      if (typeof item === 'string') {
        if (item.length > limit) (holder as Record<string, unknown>)[key] = capText(item, limit, () => onCut(pathOf()));
      } else if (typeof item === 'object' && item !== null) {
        pending.push({ holder: item as Record<string, unknown>, path: pathOf() });
      }
    }
  }
  return value;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

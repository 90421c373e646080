import { wellFormed } from '../../records/record-text.ts';

/** Markup that is already safe: produced by `html`, never by concatenating strings. */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

/**
 * A template tag that escapes every interpolated value unless it is `SafeHtml` (arrays are joined). Everything on
 * the page goes through it, so a hostile agent id or trace id cannot inject markup.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(out);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * `encodeURIComponent` that cannot throw: it throws a URIError on a lone surrogate, which a trace id stored by an
 * older version may hold. Those become U+FFFD, as SQLite stores them in the trace_id column.
 */
export function urlComponent(text: string): string {
  return encodeURIComponent(wellFormed(text));
}

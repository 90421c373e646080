import { findSensitive } from './detect.ts';
import { type FindingCounts, placeholderOf, type SensitiveKind } from './kinds.ts';

/**
 * Masks the texts of one call: each value found becomes its kind's numbered placeholder, the same value the same
 * placeholder everywhere in the call (`[EMAIL_1]` in the prompt and in a tool result alike), so the model can still
 * tell one person's address from another's. It keeps the values only while the call is masked, in memory.
 */
export class Masker {
  readonly counts: FindingCounts = {};
  readonly #placeholders = new Map<string, string>();
  readonly #next: Partial<Record<SensitiveKind, number>> = {};

  /**
   * `text` with every finding replaced; the same string when nothing was found. `count: false` for a second copy of
   * a text already counted (the request as the record keeps it).
   */
  mask(text: string, count = true): string {
    const findings = findSensitive(text);
    if (findings.length === 0) return text;
    let masked = '';
    let from = 0;
    for (const { kind, start, end } of findings) {
      masked += text.slice(from, start) + this.#placeholder(kind, text.slice(start, end));
      from = end;
      if (count) this.counts[kind] = (this.counts[kind] ?? 0) + 1;
    }
    return masked + text.slice(from);
  }

  /** Whether anything was found so far. */
  get found(): boolean {
    return Object.keys(this.counts).length > 0;
  }

  /** How many findings were counted so far, of every kind. */
  get total(): number {
    let total = 0;
    for (const count of Object.values(this.counts)) total += count ?? 0;
    return total;
  }

  #placeholder(kind: SensitiveKind, value: string): string {
    // The same number however it is written: `(415) 555-0132` and `415-555-0132` are one phone number.
    const key = `${kind}\u0000${kind === 'email' || kind === 'secret' ? value : value.replace(/[^A-Za-z0-9]/g, '')}`;
    let placeholder = this.#placeholders.get(key);
    if (placeholder === undefined) {
      const index = (this.#next[kind] ?? 0) + 1;
      this.#next[kind] = index;
      placeholder = placeholderOf(kind, index);
      this.#placeholders.set(key, placeholder);
    }
    return placeholder;
  }
}

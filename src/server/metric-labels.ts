/**
 * Bounds on what `/metrics` labels take from callers: each value and each metric's series, so that no request,
 * refused or not, can grow a scrape without end (every distinct label set is a series kept until restart).
 */

/** The label value of whatever falls past a bound. */
export const OTHER = 'other';

/** Distinct values one label takes (agents, providers, outcomes…): the first `max` seen, then `other` for any new. */
export class BoundedValues {
  readonly #seen = new Set<string>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  of(value: string): string {
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= this.#max) return OTHER;
    this.#seen.add(value);
    return value;
  }
}

/**
 * Series one metric keeps: the first `max` label sets seen; a later new one is counted in its overflow set, `other`
 * for every label but those `kept` (a token's `type`, of a few values), so totals stay right.
 */
export class SeriesCap<L extends string> {
  readonly #seen = new Set<string>();
  readonly #max: number;
  readonly #kept: readonly L[];

  constructor(max: number, kept: readonly L[] = []) {
    this.#max = max;
    this.#kept = kept;
  }

  of(labels: Record<L, string>): Record<L, string> {
    const key = Object.values(labels).join('\u0000');
    if (this.#seen.has(key)) return labels;
    if (this.#seen.size < this.#max) {
      this.#seen.add(key);
      return labels;
    }
    const overflow = { ...labels };
    for (const name of Object.keys(labels) as L[]) if (!this.#kept.includes(name)) overflow[name] = OTHER;
    return overflow;
  }
}

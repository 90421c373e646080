/**
 * The gateway's own view of how fast each provider serves each model: an exponentially weighted moving average of
 * the durations of its successful attempts (a completion to its end, a stream to its first content), and the latest
 * few of them for percentiles. Model names may come from callers (`<provider>/<any id>`), so the entries are capped:
 * the least recently observed is dropped.
 */
export class LatencyTracker {
  readonly #entries = new Map<string, { average: number; recent: number[] }>();
  readonly #maxEntries: number;

  constructor(maxEntries = 1_000) {
    this.#maxEntries = maxEntries;
  }

  /** How much one observation moves the estimate: recent enough to follow a slowdown, steady over one outlier. */
  static readonly WEIGHT = 0.2;
  /** Durations kept per entry for percentiles: enough for a p90, little memory under the entry cap. */
  static readonly RECENT = 64;
  /** Fewer durations than this say nothing about a percentile. */
  static readonly MIN_FOR_PERCENTILE = 10;

  observe(provider: string, model: string, durationMs: number): void {
    const key = keyOf(provider, model);
    const previous = this.#entries.get(key);
    const average =
      previous === undefined ? durationMs : previous.average + LatencyTracker.WEIGHT * (durationMs - previous.average);
    const recent = previous?.recent ?? [];
    recent.push(durationMs);
    if (recent.length > LatencyTracker.RECENT) recent.shift();
    // Deleted and set again: a Map iterates in insertion order, so the first key is the least recently observed.
    this.#entries.delete(key);
    this.#entries.set(key, { average, recent });
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  /** The estimate in milliseconds, or `undefined` when this provider has not yet served this model here. */
  estimate(provider: string, model: string): number | undefined {
    return this.#entries.get(keyOf(provider, model))?.average;
  }

  /** The `percentile` (0–100) of the latest durations, or `undefined` while there are too few of them. */
  percentile(provider: string, model: string, percentile: number): number | undefined {
    const recent = this.#entries.get(keyOf(provider, model))?.recent;
    if (!recent || recent.length < LatencyTracker.MIN_FOR_PERCENTILE) return undefined;
    const sorted = recent.toSorted((a, b) => a - b);
    const rank = Math.ceil((percentile / 100) * sorted.length) - 1;
    return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** Each gateway's tracker, kept beside its services (created with the gateway, gone with it). */
const trackers = new WeakMap<object, LatencyTracker>();

/** The tracker of the gateway whose `services` these are. */
export function latencyOf(services: object): LatencyTracker {
  let tracker = trackers.get(services);
  if (!tracker) trackers.set(services, (tracker = new LatencyTracker()));
  return tracker;
}

function keyOf(provider: string, model: string): string {
  return `${provider}/${model}`;
}

/**
 * The gateway's own view of how fast each provider serves each model: an exponentially weighted moving average of
 * the durations of its successful attempts (a completion to its end, a stream to its first content), and the latest
 * few of them for percentiles. Model names may come from callers (`<provider>/<any id>`), so the entries are capped:
 * the least recently observed is dropped.
 */
export class LatencyTracker {
  readonly #entries = new Map<string, Entry>();
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
    const entries = this.#entries;
    let entry = entries.get(key);
    if (entry === undefined) {
      entry = { average: durationMs, recent: new Float64Array(LatencyTracker.RECENT), count: 0, observed: 0 };
      entries.set(key, entry);
      if (entries.size > this.#maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
    } else {
      entry.average += LatencyTracker.WEIGHT * (durationMs - entry.average);
      // Deleted and set again: a Map iterates in insertion order, so the first key is the least recently observed.
      // Only once the map is half full: below that nothing is dropped, and an entry still observed by then is moved
      // to the end before the cap is reached (an entry that is not is dropped first, as it should be).
      if (entries.size > this.#maxEntries / 2) {
        entries.delete(key);
        entries.set(key, entry);
      }
    }
    // A ring of the latest durations.
    entry.recent[entry.observed % LatencyTracker.RECENT] = durationMs;
    entry.observed += 1;
    entry.count = Math.min(entry.count + 1, LatencyTracker.RECENT);
  }

  /** The estimate in milliseconds, or `undefined` when this provider has not yet served this model here. */
  estimate(provider: string, model: string): number | undefined {
    return this.#entries.get(keyOf(provider, model))?.average;
  }

  /** The `percentile` (0–100) of the latest durations, or `undefined` while there are too few of them. */
  percentile(provider: string, model: string, percentile: number): number | undefined {
    const entry = this.#entries.get(keyOf(provider, model));
    if (!entry || entry.count < LatencyTracker.MIN_FOR_PERCENTILE) return undefined;
    const sorted = entry.recent.slice(0, entry.count).sort();
    const rank = Math.ceil((percentile / 100) * sorted.length) - 1;
    return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** One provider and model: the moving average and a ring of the latest durations. */
interface Entry {
  average: number;
  recent: Float64Array;
  /** Durations in the ring (at most `RECENT`). */
  count: number;
  /** Observations ever made: the ring's next slot. */
  observed: number;
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

/**
 * The gateway's own view of how fast each provider serves each model: an exponentially weighted moving average of
 * the durations of its successful attempts (a completion to its end, a stream to its first content). Model names
 * may come from callers (`<provider>/<any id>`), so the entries are capped: the least recently observed is dropped.
 */
export class LatencyTracker {
  readonly #estimates = new Map<string, number>();
  readonly #maxEntries: number;

  constructor(maxEntries = 1_000) {
    this.#maxEntries = maxEntries;
  }

  /** How much one observation moves the estimate: recent enough to follow a slowdown, steady over one outlier. */
  static readonly WEIGHT = 0.2;

  observe(provider: string, model: string, durationMs: number): void {
    const key = keyOf(provider, model);
    const previous = this.#estimates.get(key);
    const next = previous === undefined ? durationMs : previous + LatencyTracker.WEIGHT * (durationMs - previous);
    // Deleted and set again: a Map iterates in insertion order, so the first key is the least recently observed.
    this.#estimates.delete(key);
    this.#estimates.set(key, next);
    if (this.#estimates.size > this.#maxEntries) {
      const oldest = this.#estimates.keys().next().value;
      if (oldest !== undefined) this.#estimates.delete(oldest);
    }
  }

  /** The estimate in milliseconds, or `undefined` when this provider has not yet served this model here. */
  estimate(provider: string, model: string): number | undefined {
    return this.#estimates.get(keyOf(provider, model));
  }

  get size(): number {
    return this.#estimates.size;
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

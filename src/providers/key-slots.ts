import type { ProviderKey, ProviderSettings } from './provider.ts';

/** One key of a provider as the attempts see it: its place in the provider's list, its label and weight. */
export interface KeySlot {
  index: number;
  /** Non-secret: the configured label, else `<provider>#<n>` when there are several keys; `undefined` for one. */
  label: string | undefined;
  weight: number;
  key: ProviderKey | undefined;
}

/**
 * The keys of a provider, from `providers.<name>.keys`, else a comma-separated `<PREFIX>_API_KEY`; one slot with no
 * key of its own (the single `apiKey` path) otherwise.
 */
export function keySlotsOf(provider: string, configured: ProviderSettings, envKey: string | undefined): KeySlot[] {
  const listed: ProviderKey[] | undefined =
    configured.keys ??
    (configured.apiKey === undefined && envKey?.includes(',')
      ? envKey
          .split(',')
          .map((apiKey) => apiKey.trim())
          .filter(Boolean)
          .map((apiKey) => ({ apiKey }))
      : undefined);
  if (!listed || listed.length === 0) return [{ index: 0, label: undefined, weight: 1, key: undefined }];
  return listed.map((key, index) => ({
    index,
    label: key.label ?? `${provider}#${index + 1}`,
    weight: key.weight !== undefined && key.weight > 0 ? key.weight : 1,
    key,
  }));
}

/** Failures in a row after which a key rests, and how long. */
export const KEY_REST = { failures: 3, ms: 30_000 } as const;

/**
 * Which keys are resting (a circuit breaker per key): `failures` failures in a row (429, 401, 403) rest a key for
 * `ms`; then one call probes it: a success puts it back, a failure rests it again.
 */
export class KeyHealth {
  readonly #state = new Map<string, { failures: number; restUntil: number }>();

  /** The slots in the order to try: weighted random among the keys not resting, then the resting ones. */
  order(
    provider: string,
    slots: readonly KeySlot[],
    now = performance.now(),
    random = Math.random,
  ): readonly KeySlot[] {
    if (slots.length === 1) return slots;
    const resting = (slot: KeySlot) => (this.#state.get(`${provider}#${slot.index}`)?.restUntil ?? 0) > now;
    return [
      ...weightedShuffle(
        slots.filter((slot) => !resting(slot)),
        random,
      ),
      ...slots.filter(resting),
    ];
  }

  failed(provider: string, slot: KeySlot, now = performance.now()): void {
    const id = `${provider}#${slot.index}`;
    const state = this.#state.get(id) ?? { failures: 0, restUntil: 0 };
    state.failures += 1;
    if (state.failures >= KEY_REST.failures) state.restUntil = now + KEY_REST.ms;
    this.#state.set(id, state);
  }

  succeeded(provider: string, slot: KeySlot): void {
    this.#state.delete(`${provider}#${slot.index}`);
  }
}

/** Weighted random order without replacement (each pick proportional to the weights left). */
function weightedShuffle(slots: KeySlot[], random: () => number): KeySlot[] {
  const left = [...slots];
  const ordered: KeySlot[] = [];
  while (left.length > 0) {
    let pick = random() * left.reduce((sum, slot) => sum + slot.weight, 0);
    let index = 0;
    while (index < left.length - 1 && pick >= left[index]!.weight) pick -= left[index++]!.weight;
    ordered.push(...left.splice(index, 1));
  }
  return ordered;
}

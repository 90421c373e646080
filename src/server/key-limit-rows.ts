import { hasLimits, type KeyLimits, withoutEmpty } from '../access/key-limits.ts';

/* A key's limits as its row stores them (JSON text), read for the key and for the keys that minted it. */

/** A stored `limits` column: its limits, or `undefined` when none is set (or the text is not theirs). */
export function limitsOf(text: string | null | undefined): KeyLimits | undefined {
  if (typeof text !== 'string') return undefined;
  const parsed = JSON.parse(text) as KeyLimits | null;
  return hasLimits(parsed) ? withoutEmpty(parsed) : undefined;
}

/** The own limits of the keys of `chain` that set some, by id. */
export function limitsAbove(
  chain: readonly { id: string; limits?: string | null | undefined }[],
): Record<string, KeyLimits> {
  const above: Record<string, KeyLimits> = {};
  for (const ancestor of chain) {
    const theirs = limitsOf(ancestor.limits);
    if (theirs) above[ancestor.id] = theirs;
  }
  return above;
}

import type { FindingCounts } from './kinds.ts';

/**
 * What a gateway does with sensitive data found in a request: `mask` replaces it by typed placeholders before any
 * provider sees it, `block` refuses the call (400, no provider request), `off` sends it as written.
 */
export type SensitiveDataMode = 'off' | 'mask' | 'block';

export const SENSITIVE_DATA_MODES: readonly SensitiveDataMode[] = ['off', 'mask', 'block'];

/** What the guard decided for one call: the mode applied and the counts of what it found, by kind. */
export interface SensitiveDataDecision {
  mode: SensitiveDataMode;
  found: FindingCounts;
}

const RANK: Readonly<Record<SensitiveDataMode, number>> = { off: 0, mask: 1, block: 2 };

/** The strictest of the modes set (gateway, key, deployment, request): `block` > `mask` > `off`. */
export function strictestMode(...modes: ReadonlyArray<SensitiveDataMode | null | undefined>): SensitiveDataMode {
  let strictest: SensitiveDataMode = 'off';
  for (const mode of modes) if (mode && RANK[mode] > RANK[strictest]) strictest = mode;
  return strictest;
}

export function isSensitiveDataMode(value: unknown): value is SensitiveDataMode {
  return typeof value === 'string' && (SENSITIVE_DATA_MODES as readonly string[]).includes(value);
}

import { type Command, InvalidArgumentError } from 'commander';
import {
  childLimits,
  hasLimits,
  KEY_BUDGET_FORM,
  type KeyLimits,
  keyLimitsProblem,
  parseKeyBudget,
} from '../access/key-limits.ts';
import type { ApiKeyInfo } from '../server/api-keys.ts';
import type { KeyStore } from '../server/key-store.ts';
import { parsePositiveInteger } from './format.ts';

/** The options of `keys create` and `keys update` that set a key's own limits (`src/access/key-limits.ts`). */
export interface LimitOptions {
  rpm?: number;
  tpm?: number;
  maxInFlight?: number;
  budget?: string[];
}

/** Adds `--rpm`, `--tpm`, `--max-in-flight` and `--budget` (repeatable) to a command. */
export function withLimitOptions(command: Command): Command {
  const collectBudget = (value: string, previous: string[] = []) => {
    if (!parseKeyBudget(value)) throw new InvalidArgumentError(`expected ${KEY_BUDGET_FORM}, e.g. 5/day.`);
    return [...previous, value];
  };
  return command
    .option('--rpm <n>', 'requests the key may make a minute (default: serve --rate-limit)', parsePositiveInteger)
    .option('--tpm <n>', 'tokens in and out a minute (default: serve --tokens-per-minute)', parsePositiveInteger)
    .option(
      '--max-in-flight <n>',
      'requests in flight at once (default: serve --max-concurrent-per-key)',
      parsePositiveInteger,
    )
    .option(
      '--budget <dollars/window>',
      'a dollar budget: 5/day, 100/month, 20 for its lifetime (repeatable)',
      collectBudget,
    );
}

/** The limits the options give, over `base` (a key's current ones for `update`); a window twice is refused. */
export function limitsOf(options: LimitOptions, base: KeyLimits = {}): KeyLimits {
  const limits: KeyLimits = { ...base };
  if (options.rpm !== undefined) limits.requests_per_minute = options.rpm;
  if (options.tpm !== undefined) limits.tokens_per_minute = options.tpm;
  if (options.maxInFlight !== undefined) limits.max_in_flight = options.maxInFlight;
  if (options.budget) limits.budgets = options.budget;
  const problem = keyLimitsProblem(limits);
  if (problem) throw new Error(`Invalid limits: ${problem}.`);
  return limits;
}

/**
 * `keys update`: the key's limits changed (given options replace theirs; `--clear-limits` starts from none), within
 * its parent's own limits (the CLI knows no server flags: a parent's unset limit is unbounded here).
 */
export async function updateLimits(
  store: KeyStore,
  idOrPrefix: string,
  options: LimitOptions & { clearLimits?: boolean },
): Promise<ApiKeyInfo> {
  const all = await store.list();
  const target = all.find((key) => key.id === idOrPrefix || key.prefix === idOrPrefix);
  if (!target) throw new Error(`No API key has the id or prefix "${idOrPrefix}".`);
  const limits = limitsOf(options, options.clearLimits ? {} : (target.limits ?? {}));
  const parent = all.find((key) => key.id === target.parent_id);
  const checked = parent ? childLimits(parent.limits ?? {}, limits) : limits;
  return store.updateLimits(target.id, hasLimits(checked) ? checked : null);
}

/** A key's own limits in one short cell: `60 rpm, 100000 tpm, 4 in flight, $5/day`. */
export function limitsCell(limits: KeyLimits | null | undefined): string {
  if (!limits) return '';
  const parts = [
    limits.requests_per_minute !== undefined ? `${limits.requests_per_minute} rpm` : '',
    limits.tokens_per_minute !== undefined ? `${limits.tokens_per_minute} tpm` : '',
    limits.max_in_flight !== undefined ? `${limits.max_in_flight} in flight` : '',
    ...(limits.budgets ?? []).map((budget) => `$${budget}`),
  ];
  return parts.filter(Boolean).join(', ');
}

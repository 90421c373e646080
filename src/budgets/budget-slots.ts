import { DOLLAR_WINDOWS, type KeyLimits, keyBudgets } from '../access/key-limits.ts';
import { sha256Hex } from '../internal/sha256.ts';
import { ATTRIBUTION } from '../records/call-record.ts';

/**
 * What a budget counts spend by, the one list: one trace, one agent, one workflow name, or one API key of `serve`.
 * `--budget` and the config file's `budgets` read it.
 */
export const BUDGET_SCOPES = ['trace', 'agent', 'workflow', 'key'] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];
/**
 * The window spend is summed over, the one list: a minute, a calendar day or month (UTC), or the whole life of the
 * scope's value. The config file's `budgets` read it.
 */
export const BUDGET_WINDOWS = ['minute', ...DOLLAR_WINDOWS] as const;
export type BudgetWindow = (typeof BUDGET_WINDOWS)[number];

/** Dollars, or tokens (a rate limit: `{ scope: 'key', tokens: 100_000, window: 'minute' }`), per window. */
export type BudgetRule = (
  | { scope: BudgetScope; usd: number; window: BudgetWindow; tokens?: undefined }
  | { scope: BudgetScope; tokens: number; window: BudgetWindow; usd?: undefined }
) & {
  /** A key's own limit (`KeyLimits`), not the gateway's. */
  own?: true;
};

/**
 * Who a call is charged to: its metadata (trace, agent, workflow, `api_key_id`), the API keys whose `key` budgets it
 * counts against besides (a key and the keys that minted it, nearest first), and its tenant (`tenantOf`), whose
 * traces, workflows and agents are its own: another tenant's `order-42` is another budget.
 */
export interface BudgetSubject {
  metadata?: Readonly<Record<string, string>> | undefined;
  keys?: readonly string[] | undefined;
  tenant?: string | undefined;
  /** The own limits of keys in `keys` that set some: they replace the gateway's `key` rules of the same kind. */
  keyLimits?: Readonly<Record<string, KeyLimits>> | undefined;
}

/**
 * Every budget a call falls under, as rule and value: the gateway's rules for each value of their scope, except a
 * `key` rule where that key sets its own limit of the kind (dollars in the window, tokens a minute); then each key's
 * own limits.
 */
export function budgetsOf(
  rules: readonly BudgetRule[],
  subject: BudgetSubject,
): Array<{ rule: BudgetRule; value: string }> {
  const result: Array<{ rule: BudgetRule; value: string }> = [];
  const own = new Map((subject.keys ?? []).map((key) => [key, ownKeyRules(subject.keyLimits?.[key])]));
  for (const rule of rules)
    for (const value of valuesOf(rule, subject)) {
      const replaced = own.get(value)?.some((mine) => sameKind(mine, rule));
      if (!(rule.scope === 'key' && replaced)) result.push({ rule, value });
    }
  for (const [key, mine] of own) for (const rule of mine) result.push({ rule, value: key });
  return result;
}

/** A key's own limits as budget rules: tokens a minute, and dollars per window. */
export function ownKeyRules(limits: KeyLimits | undefined): BudgetRule[] {
  if (!limits) return [];
  const rules: BudgetRule[] = keyBudgets(limits).map(({ usd, window }) => ({ scope: 'key', usd, window, own: true }));
  if (limits.tokens_per_minute !== undefined)
    rules.push({ scope: 'key', tokens: limits.tokens_per_minute, window: 'minute', own: true });
  return rules;
}

function sameKind(a: BudgetRule, b: BudgetRule): boolean {
  return a.window === b.window && (a.tokens === undefined) === (b.tokens === undefined);
}

/**
 * Scopes whose values a caller names freely, so that each tenant has its own: a trace, a workflow, an agent (another
 * tenant's `support` is another budget; one tenant spending it would refuse the other's calls).
 */
const PER_TENANT: ReadonlySet<BudgetScope> = new Set(['trace', 'workflow', 'agent']);

/** The metadata key a scope's value is read from: the attribution field of that name, or the key's id. */
const METADATA_KEY: Record<BudgetScope, string> = { ...ATTRIBUTION, key: 'api_key_id' };

/** The values of a rule's scope a call falls under: one (or none), or for `key` every key of its lineage. */
export function valuesOf(rule: BudgetRule, subject: BudgetSubject): string[] {
  const named = subject.metadata?.[METADATA_KEY[rule.scope]];
  if (rule.scope !== 'key') return named === undefined ? [] : [named];
  return [...new Set([...(named === undefined ? [] : [named]), ...(subject.keys ?? [])])];
}

/**
 * Where a store bounding its memory may forget the rule's slot (`SlotHold.pool`): a tenant's own traces, workflows
 * and agents are its pool, so that one naming new agents by the thousand fills its own part, not every tenant's (a
 * store holding only budgets it may not forget refused everyone's new ones). A key's budget, and an agent's of a
 * call without a tenant (the library's caller's), are never forgotten inside their window.
 */
export function poolOf(rule: BudgetRule, subject: BudgetSubject): string | undefined {
  if (!PER_TENANT.has(rule.scope)) return undefined;
  if (rule.scope !== 'agent') return subject.tenant ?? '';
  // A pool of their own: a busy tenant's new traces (kept 90 days) never push out its spent agent's budget.
  return subject.tenant === undefined ? undefined : `${subject.tenant}\u0000agents`;
}

/**
 * The counter of one rule for one value in the window `now` falls in; a trace's, a workflow's or an agent's within
 * its tenant (none for a call without a key: the gateway's own namespace). It names the unit, not the amount: a limit
 * raised or lowered, or a key moved between the gateway's `key` rule and a limit of its own, counts on from what was
 * spent in the window (rules of one kind for one value share the counter, and the tighter limit holds).
 */
export function slotKey(rule: BudgetRule, value: string, now: Date, tenant?: string): string {
  const lengths = { minute: 16, day: 10, month: 7, lifetime: 0 } as const;
  const period = now.toISOString().slice(0, lengths[rule.window]);
  const unit = rule.tokens !== undefined ? 'tok' : 'usd';
  const owned = tenant !== undefined && PER_TENANT.has(rule.scope) ? `${tenant}\u0000` : '';
  return `${rule.scope}\u0000${rule.window}\u0000${unit}\u0000${period}\u0000${owned}${boundedName(value)}`;
}

/** Longest value a slot is named by as it is; a longer one (metadata values have no length limit) by its SHA-256. */
const LONGEST_NAMED_VALUE = 256;

/**
 * The value, or its digest when long: a store keeps up to 100,000 slots a value (a trace's budget for 90 days), and
 * a slot named by a megabyte trace id would keep the megabyte. Distinct values keep distinct slots.
 */
function boundedName(value: string): string {
  return value.length <= LONGEST_NAMED_VALUE ? value : `\u0001sha256:${sha256Hex(value)}`;
}

/** How long a slot must be kept: past its window (a day, a month), or 90 days for a trace's lifetime. */
export function ttlOf(window: BudgetWindow): number {
  const day = 86_400_000;
  if (window === 'minute') return 120_000;
  return window === 'day' ? 2 * day : window === 'month' ? 32 * day : 90 * day;
}

/** Milliseconds until the window turns (a minute's); a day's or a month's, roughly, and a lifetime's never. */
export function untilNextWindow(window: BudgetWindow, now: Date): number {
  if (window === 'minute') return 60_000 - (now.getTime() % 60_000);
  if (window === 'day') return 86_400_000 - (now.getTime() % 86_400_000);
  return 3_600_000;
}

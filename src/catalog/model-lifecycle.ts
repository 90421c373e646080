import { isoTime } from '../internal/iso-time.ts';
import type { ModelEntry } from './catalog-schema.ts';

/**
 * Where a model is in its maker's lifecycle, as Anthropic's `ModelInfo.lifecycle` says it: `active`; `deprecated`
 * (announced, or dated to retire, and still served); `retired` (its retirement day has come: calls may fail).
 */
export type ModelLifecycle = 'active' | 'deprecated' | 'retired';

/**
 * The one place a model's lifecycle is decided: `/v1/models` in the OpenAI and Anthropic shapes, `switchyard
 * models` and the `model_deprecated` warning of a call all read it. `day` (YYYY-MM-DD, UTC) defaults to today.
 */
export function lifecycleOf(
  model: { deprecated_at?: string | undefined; retires_at?: string | undefined },
  day?: string,
): ModelLifecycle {
  const { deprecated_at: deprecated, retires_at: retires } = model;
  if (deprecated === undefined && retires === undefined) return 'active';
  return retires !== undefined && retires <= (day ?? utcDay()) ? 'retired' : 'deprecated';
}

/** A model its maker is retiring, as a call to it is told: `createGateway({ onModelDeprecated })`, serve's log. */
export interface ModelDeprecation {
  /** The pinned id. */
  model: string;
  lifecycle: Exclude<ModelLifecycle, 'active'>;
  deprecated_at: string | null;
  retires_at: string | null;
  replacement: string | null;
  /** What the `model_deprecated` warning says. */
  message: string;
}

/**
 * The deprecation of a catalog model (`deprecated_at` or `retires_at` set), or `undefined` for a current one. `today`
 * (YYYY-MM-DD, UTC) decides whether the retirement is to come or past.
 */
export function deprecationOf(entry: ModelEntry, day?: string): ModelDeprecation | undefined {
  const { deprecated_at: deprecated, retires_at: retires } = entry;
  if (deprecated === undefined && retires === undefined) return undefined;
  // Only a deprecated model needs the date: every call to a current one asks.
  const today = day ?? utcDay();
  const known = told.get(entry);
  if (known?.day === today) return known.deprecation;
  // Shared by every call to the model that day: frozen, so that no caller changes another's.
  const deprecation = Object.freeze(describe(entry, today));
  told.set(entry, { day: today, deprecation });
  return deprecation;
}

/** Each deprecated model's notice, made once a day: every call to it carries one. Keyed by catalog entry. */
const told = new WeakMap<ModelEntry, { day: string; deprecation: ModelDeprecation }>();

/** Today (UTC, YYYY-MM-DD), from the second's cached date and time. */
export function utcDay(): string {
  return isoTime(Date.now()).slice(0, 10);
}

function describe(entry: ModelEntry, today: string): ModelDeprecation {
  const { deprecated_at: deprecated, retires_at: retires, replacement } = entry;
  const lifecycle = lifecycleOf(entry, today) === 'retired' ? 'retired' : 'deprecated';
  const since = deprecated === undefined ? '' : ` since ${deprecated}`;
  const end =
    retires === undefined
      ? ''
      : lifecycle === 'retired'
        ? ` and retired on ${retires} (calls to it may fail)`
        : ` and retires on ${retires}`;
  const instead = replacement === undefined ? '' : `: use ${replacement} instead`;
  return {
    model: entry.id,
    lifecycle,
    deprecated_at: deprecated ?? null,
    retires_at: retires ?? null,
    replacement: replacement ?? null,
    message: `${entry.id} is deprecated${since}${end}${instead}.`,
  };
}

/** `notify`, called the first time each model is passed: a process logs a deprecation once, not once per call. */
export function oncePerModel(notify: (deprecation: ModelDeprecation) => void): (deprecation: ModelDeprecation) => void {
  const told = new Set<string>();
  return (deprecation) => {
    if (told.has(deprecation.model)) return;
    told.add(deprecation.model);
    notify(deprecation);
  };
}

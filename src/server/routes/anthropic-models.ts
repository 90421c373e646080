import type Anthropic from '@anthropic-ai/sdk';
import type { ModelLifecycle } from '../../catalog/model-lifecycle.ts';
import { anthropicErrorBody } from '../../dialects/messages/stream-events.ts';
import type { Gateway } from '../../gateway.ts';
import type { Reply, ServerRequest } from '../exchange.ts';
import { errorResponse, HttpError } from '../responses.ts';

type ListedModel = ReturnType<Gateway['listModels']>['data'][number];

/** A page of Anthropic's `GET /v1/models`. */
export interface AnthropicModelPage {
  data: Anthropic.ModelInfo[];
  has_more: boolean;
  first_id: string | null;
  last_id: string | null;
}

/** Anthropic's SDKs send `anthropic-version` on every request: they get Anthropic's shapes. */
export function wantsAnthropicShape(request: ServerRequest): boolean {
  return request.header('anthropic-version') !== undefined;
}

/** The route's answer, its errors in Anthropic's shape (the SDK's error classes read the status either way). */
export async function answeredAsAnthropic(answer: () => Promise<Reply>): Promise<Reply> {
  try {
    return await answer();
  } catch (error) {
    return errorResponse(error, anthropicErrorBody);
  }
}

/** A catalog model as Anthropic's `ModelInfo`: released at its release date (the epoch when it has none). */
export function anthropicModel(model: ListedModel): Anthropic.ModelInfo {
  const released = model.release_date ? Date.parse(`${model.release_date}T00:00:00Z`) : (model.created ?? 0) * 1000;
  return {
    type: 'model',
    id: model.id,
    display_name: model.name ?? model.id,
    created_at: new Date(Number.isNaN(released) ? 0 : released).toISOString().replace('.000Z', 'Z'),
    max_input_tokens: model.context_window ?? null,
    max_tokens: model.max_output_tokens ?? null,
    capabilities: null,
    // The catalog's lifecycle, as every other shape of the model says it; Anthropic's dates are RFC 3339 times.
    lifecycle: model.lifecycle,
    deprecated_at: model.deprecated_at === undefined ? null : `${model.deprecated_at}T00:00:00Z`,
    retires_at: model.retires_at === undefined ? null : `${model.retires_at}T00:00:00Z`,
    line: null,
  };
}

/**
 * One page of the models, newest first as Anthropic lists them: `limit` (1–1000, 20 by default) after `after_id`
 * or before `before_id`, of the `lifecycle` stages asked for (active and deprecated by default, as Anthropic's).
 */
export function anthropicModelPage(models: readonly ListedModel[], query: URLSearchParams): AnthropicModelPage {
  const stages = lifecyclesOf(query);
  const all = models
    .filter((model) => stages.has(model.lifecycle))
    .map(anthropicModel)
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
  const limit = limitOf(query);
  const at = (param: 'after_id' | 'before_id'): number | undefined => {
    const id = query.get(param);
    if (id === null) return undefined;
    const index = all.findIndex((model) => model.id === id);
    if (index < 0) throw new HttpError(400, `${param}: no model "${id.slice(0, 200)}" is listed.`, { param });
    return index;
  };
  const after = at('after_id');
  const before = at('before_id');
  const start = after === undefined ? 0 : after + 1;
  const end = before ?? all.length;
  // Before a model, the page ends there and reaches back `limit` models; otherwise it starts after `after_id`.
  const from = before !== undefined && after === undefined ? Math.max(start, end - limit) : start;
  const data = all.slice(from, Math.min(end, from + limit));
  const hasMore = before !== undefined && after === undefined ? from > start : from + limit < end;
  return { data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

const lifecycles: ReadonlySet<string> = new Set<ModelLifecycle>(['active', 'deprecated', 'retired']);

/** `lifecycle[]=…` as Anthropic's SDKs send it (or `lifecycle=…`), up to 3; active and deprecated when absent. */
function lifecyclesOf(query: URLSearchParams): ReadonlySet<string> {
  const asked = [...query.getAll('lifecycle[]'), ...query.getAll('lifecycle')];
  if (asked.length === 0) return new Set<ModelLifecycle>(['active', 'deprecated']);
  const wrong = asked.find((stage) => !lifecycles.has(stage));
  if (wrong !== undefined || asked.length > 3)
    throw new HttpError(
      400,
      wrong === undefined
        ? 'lifecycle: up to 3 values.'
        : `lifecycle: "${wrong.slice(0, 50)}" is not one of active, deprecated, retired.`,
      { param: 'lifecycle' },
    );
  return new Set(asked);
}

function limitOf(query: URLSearchParams): number {
  const value = query.get('limit');
  if (value === null || value === '') return 20;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new HttpError(400, 'limit: must be an integer from 1 to 1000.', { param: 'limit' });
  return limit;
}

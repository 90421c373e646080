import type Anthropic from '@anthropic-ai/sdk';
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
    lifecycle: 'active',
    deprecated_at: null,
    retires_at: null,
    line: null,
  };
}

/**
 * One page of the models, newest first as Anthropic lists them: `limit` (1–1000, 20 by default) after `after_id`
 * or before `before_id`.
 */
export function anthropicModelPage(models: readonly ListedModel[], query: URLSearchParams): AnthropicModelPage {
  const all = models.map(anthropicModel).sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
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

function limitOf(query: URLSearchParams): number {
  const value = query.get('limit');
  if (value === null || value === '') return 20;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new HttpError(400, 'limit: must be an integer from 1 to 1000.', { param: 'limit' });
  return limit;
}

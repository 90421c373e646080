import type { WebSearchOptions } from '../../types.ts';
import type { ProviderCall } from '../provider.ts';
import type { OpenAIFamilyQuirks } from './family.ts';

/** Switchyard's fields of `web_search_options`, which OpenAI's chat API does not take. */
const OURS = ['allowed_domains', 'blocked_domains', 'max_uses'] as const;

/**
 * `web_search_options` where the provider's chat API searches only with some models (OpenAI's search models): sent to
 * those, without Switchyard's own fields (each dropped with a warning); for any other model, dropped with a warning,
 * since the API refuses it there (400 "Web search options not supported with this model").
 */
export function applyWebSearch(call: ProviderCall, body: Record<string, unknown>, quirks: OpenAIFamilyQuirks): void {
  const options = body.web_search_options as WebSearchOptions | null | undefined;
  if (!options || !quirks.webSearchModels) return;
  if (!quirks.webSearchModels.test(String(body.model))) {
    delete body.web_search_options;
    call.warn({
      code: 'unsupported_parameter',
      param: 'web_search_options',
      message:
        `${call.model.id} does not search the web on ${quirks.name}'s chat API (its search models do); ` +
        'no search was sent.',
    });
    return;
  }
  const sent: Record<string, unknown> = { ...options };
  for (const key of OURS) {
    if (sent[key] === undefined) continue;
    delete sent[key];
    call.warn({
      code: 'unsupported_parameter',
      param: `web_search_options.${key}`,
      message: `${quirks.name}'s chat web search has no "${key}"; it was not sent.`,
    });
  }
  body.web_search_options = sent;
}

import type { GenerateContentConfig } from '@google/genai';
import type { WebSearchOptions } from '../../types.ts';
import type { ProviderCall } from '../provider.ts';

/**
 * `web_search_options` as Gemini's Google Search grounding (the blocked domains as its `excludeDomains`). Gemini takes
 * it only without function declarations beside it (their combination needs a Gemini 3 opt-in whose server-side tool
 * parts this gateway does not read): with them, the functions are sent and the search is dropped with a warning.
 */
export function applyWebSearch(call: ProviderCall, config: GenerateContentConfig): void {
  const options = (call.body as { web_search_options?: WebSearchOptions | null }).web_search_options;
  if (!options) return;
  const drop = (param: string, why: string) =>
    call.warn({ code: 'unsupported_parameter', param: `web_search_options${param}`, message: why });
  if (config.tools?.some((tool) => (tool as { functionDeclarations?: unknown[] }).functionDeclarations?.length)) {
    drop('', 'Gemini cannot ground in Google Search beside function tools; the functions were sent, no search.');
    return;
  }
  const search = options.blocked_domains?.length ? { excludeDomains: options.blocked_domains } : {};
  config.tools = [...(config.tools ?? []), { googleSearch: search }];
  if (options.allowed_domains?.length) drop('.allowed_domains', "Gemini's Google Search has no allowed domains.");
  if (options.max_uses != null) drop('.max_uses', "Gemini's Google Search takes no limit on searches.");
  if (options.user_location) drop('.user_location', "Gemini's Google Search takes no user location.");
  if (options.search_context_size) drop('.search_context_size', "Gemini's Google Search has no context size.");
}

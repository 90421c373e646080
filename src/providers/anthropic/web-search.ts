import type Anthropic from '@anthropic-ai/sdk';
import type { WebSearchOptions } from '../../types.ts';
import type { ProviderCall } from '../provider.ts';
import type { Params } from './convert-request.ts';

/**
 * `web_search_options` as Anthropic's web search tool (`web_search_20250305`, run on Anthropic's side): the domains,
 * the number of searches and the user's location go with it; OpenAI's `search_context_size` has no equivalent.
 */
export function applyWebSearch(call: ProviderCall, params: Params): void {
  const options = (call.body as { web_search_options?: WebSearchOptions | null }).web_search_options;
  if (!options) return;
  const tool: Anthropic.WebSearchTool20250305 = { type: 'web_search_20250305', name: 'web_search' };
  if (options.allowed_domains?.length) tool.allowed_domains = options.allowed_domains;
  if (options.blocked_domains?.length) tool.blocked_domains = options.blocked_domains;
  if (options.max_uses != null) tool.max_uses = options.max_uses;
  const place = options.user_location?.approximate;
  if (place) tool.user_location = { type: 'approximate', ...place };
  if (options.search_context_size != null) {
    call.warn({
      code: 'unsupported_parameter',
      param: 'web_search_options.search_context_size',
      message: "Anthropic's web search has no search context size; it was not sent.",
    });
  }
  if (params.tools?.some((other) => (other as { name?: string }).name === tool.name)) {
    call.warn({
      code: 'unsupported_parameter',
      param: 'web_search_options',
      message: 'A function tool is named "web_search", the name of Anthropic\'s web search tool; no search was sent.',
    });
    return;
  }
  params.tools = [...(params.tools ?? []), tool];
}

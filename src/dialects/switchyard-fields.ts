import type { CompletionRequest } from '../types.ts';

/**
 * Switchyard's own request fields, taken in every dialect as in chat. (Not `input`: the Responses API's `input` is
 * its conversation, not template variables.)
 */
const FIELDS = ['fallbacks', 'structured_output_fallback', 'prompt_cache'] as const;

export function copySwitchyardFields(params: object, request: CompletionRequest): void {
  for (const field of FIELDS) {
    const value = (params as Record<string, unknown>)[field];
    if (value !== undefined) Object.assign(request, { [field]: value });
  }
}

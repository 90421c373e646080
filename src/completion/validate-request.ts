import type { CompletionRequest } from '../types.ts';
import { fail, isObject, parameterRow } from './request-parameters.ts';

/**
 * Checks a chat-completion request before anything else happens, so a bad request fails fast with a 400 that
 * names the parameter and says what to send instead. Every key must be a row of the parameter table, and each
 * row checks its own value.
 */
export function validateRequest(request: unknown): asserts request is CompletionRequest {
  if (!isObject(request)) fail('The request must be a JSON object.', null);
  for (const key of Object.keys(request)) {
    const row = parameterRow(key);
    if (!row) {
      fail(
        `Unrecognized request parameter "${key}". Supported: the OpenAI chat-completion parameters plus metadata, ` +
          `input, reasoning and fallbacks.`,
        key,
      );
    }
    const value = request[key];
    if (value != null) row.check?.(value, request);
  }
  if (request.model == null) parameterRow('model')!.check!(request.model, request);
}

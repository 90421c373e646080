import type { CompletionRequest } from '../types.ts';
import { fail, isObject } from './parameter-checks.ts';
import { refuseArraysWithConstructor } from './plain-arrays.ts';
import { type ParameterTable, REQUEST_PARAMETERS } from './request-parameters.ts';
import type { FieldNotes } from './unknown-fields.ts';

type RequestCheck = (request: unknown, notes?: FieldNotes) => asserts request is CompletionRequest;

/**
 * The request check of a parameter table: every key must be a row of the table, and each row checks its own value.
 * Unknown fields inside a value are told to `notes`. `validateRequest` is the one of `REQUEST_PARAMETERS`.
 */
export function requestValidator(table: ParameterTable): RequestCheck {
  const rows = new Map(Object.entries(table));
  return (request, notes) => {
    if (!isObject(request)) fail('The request must be a JSON object.', null);
    for (const key of Object.keys(request)) {
      const row = rows.get(key);
      if (!row) {
        fail(
          `Unrecognized request parameter "${key}". Supported: the OpenAI chat-completion parameters plus metadata, ` +
            `input, reasoning and fallbacks.`,
          key,
        );
      }
      const value = request[key];
      if (value != null) row.check?.(value, request, notes);
    }
    if (request.model == null) rows.get('model')?.check?.(request.model, request);
    refuseArraysWithConstructor(request);
  };
}

/**
 * Checks a chat-completion request before anything else happens, so a bad request fails fast with a 400 that
 * names the parameter and says what to send instead.
 */
export const validateRequest: RequestCheck = requestValidator(REQUEST_PARAMETERS);

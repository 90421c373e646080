import { type Dialect, sameNamedParameters } from '../request/request-parameters.ts';
import type { CompletionRequest } from '../types.ts';

/**
 * The fields a dialect's request holds under chat's own names and meanings: the parameter table's rows that list the
 * dialect (`temperature`, Switchyard's `fallbacks`, `structured_output_fallback`, `prompt_cache`, …). They are
 * checked as chat checks them and copied as they are.
 */

/** Throws the chat check's 400, naming the field, for a same-named field whose value chat would refuse. */
export function checkSameNamedFields(dialect: Dialect, params: Record<string, unknown>): void {
  for (const [field, row] of sameNamedParameters(dialect)) {
    const value = params[field];
    if (value != null) row.check?.(value, params);
  }
}

export function copySameNamedFields(dialect: Dialect, params: object, request: CompletionRequest): void {
  for (const [field] of sameNamedParameters(dialect)) {
    const value = (params as Record<string, unknown>)[field];
    if (value != null) Object.assign(request, { [field]: value });
  }
}

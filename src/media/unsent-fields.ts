import { type FieldPath, noteUnknownFields } from '../request/unknown-fields.ts';

/** A media request's fields the gateway itself obeys, sent to no provider (`user` stands in the metadata). */
const GATEWAY_FIELDS = ['model', 'metadata', 'fallbacks', 'sensitive_data', 'user'];

/** The fields one media API takes: its body's, and the gateway's own. */
export function mediaFields(body: readonly string[]): ReadonlySet<string> {
  return new Set([...GATEWAY_FIELDS, ...body]);
}

/**
 * The fields of a speech or transcription request that neither the gateway nor the API's body takes (`known`): no
 * provider is sent them, so each is dropped with a warning (an error under `strict`) rather than ignored.
 */
export function unsentFields(request: object, known: ReadonlySet<string>): FieldPath[] {
  const unsent: FieldPath[] = [];
  noteUnknownFields(request as Record<string, unknown>, known, () => [], { unknownField: (path) => unsent.push(path) });
  return unsent;
}

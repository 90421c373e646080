/** A media request's fields the gateway itself obeys, sent to no provider (`user` stands in the metadata). */
const GATEWAY_FIELDS = ['model', 'metadata', 'fallbacks', 'sensitive_data', 'user'];

/**
 * The fields of a speech or transcription request that neither the gateway nor the API's body takes: no provider is
 * sent them, so each is dropped with a warning (an error under `strict`) rather than ignored.
 */
export function unsentFields(request: object, body: readonly string[]): string[] {
  const taken = new Set([...GATEWAY_FIELDS, ...body]);
  return Object.keys(request).filter((name) => !taken.has(name) && (request as Record<string, unknown>)[name] != null);
}

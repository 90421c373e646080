/** Sent as `user-agent` by every wire transport, so a provider's logs can tell the gateway's requests apart. */
const USER_AGENT = 'switchyard-llm';

/**
 * The headers of one kind of request, built once per adapter: the provider's auth, JSON in, `accept`, then the
 * caller's `providers.<name>.headers` over them (names lower-cased, as undici sends them).
 */
export function wireHeaders(
  own: Record<string, string>,
  configured: Record<string, string> | undefined,
  accept: string,
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept,
    'user-agent': USER_AGENT,
  };
  // Values trimmed as fetch does: a key read from a file keeps its trailing line break.
  for (const [name, value] of Object.entries(own)) headers[name.toLowerCase()] = value.trim();
  for (const [name, value] of Object.entries(configured ?? {})) headers[name.toLowerCase()] = value.trim();
  return headers;
}

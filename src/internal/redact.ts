/**
 * Shapes of provider and Switchyard keys (OpenAI/Anthropic `sk-…`, ours `sy-…`, Groq `gsk_…`, xAI `xai-…`, Google
 * `AIza…`).
 */
const KEY_LIKE = /\b(?:sk-|sy-|gsk_|xai-)[A-Za-z0-9_*-]{16,}|\bAIza[A-Za-z0-9_-]{30,}/g;

/** Removes credentials from text that may reach logs, errors or records: the known keys, then anything key-shaped. */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let result = text;
  for (const secret of secrets) if (secret && secret.length >= 6) result = result.split(secret).join('[redacted]');
  return result.replace(KEY_LIKE, '[redacted]');
}

/**
 * A copy of an upstream error that is safe to keep as `cause`: same name, message and stack with credentials
 * removed. SDK errors can quote request details or a provider's echo of the key, and `console.error(error)` prints
 * the whole cause chain.
 */
export function redactedCause(error: unknown, secrets: ReadonlyArray<string | undefined>): Error {
  const original = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(redactSecrets(original.message, secrets));
  copy.name = original.name;
  copy.stack = redactSecrets(original.stack ?? '', secrets);
  return copy;
}

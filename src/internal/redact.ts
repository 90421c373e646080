const KEY_LIKE = /\b(sk|sy|gsk|xai|AIza)[-_A-Za-z0-9*]{8,}/g;

/** Removes credentials from text that may reach logs, errors or records: the known keys, then anything key-shaped. */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let result = text;
  for (const secret of secrets) if (secret && secret.length >= 6) result = result.split(secret).join('[redacted]');
  return result.replace(KEY_LIKE, '[redacted]');
}

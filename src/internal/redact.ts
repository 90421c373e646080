/**
 * Shapes of provider and Switchyard keys (OpenAI/Anthropic `sk-…`, ours `sy-…`, Groq `gsk_…`, xAI `xai-…`, Google
 * `AIza…`).
 */
const KEY_LIKE = /\b(?:sk-|sy-|gsk_|xai-)[A-Za-z0-9_*-]{16,}|\bAIza[A-Za-z0-9_-]{30,}/g;

/**
 * The userinfo of a URL (`https://user:password@host`): everything between `//` and the last `@` of the authority.
 * Quotes and angle brackets end it too, so a URL inside JSON or HTML takes nothing after it along.
 */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'<>\\]*@/gi;

/**
 * A password given as a URL's query parameter (`pg` and `ioredis` take `?password=`, `pg` also `sslpassword`): its
 * value, up to the next parameter. The parameter's name stays, so a reader sees what was there.
 */
const URL_PASSWORD_PARAMETER = /([?&](?:ssl)?password=)[^&\s#"'<>\\]*/gi;

/** Characters that split a secret into pieces when an error quotes only part of it (a key with a line break). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: a secret is cut at its control characters.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/;

/**
 * Removes credentials from text that may reach logs, errors or records: the known secrets (whole, JSON-escaped, and
 * each piece between control characters), the userinfo of every URL, then anything key-shaped.
 */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let result = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 6) continue;
    result = result.split(secret).join('[redacted]');
    if (!CONTROL.test(secret)) continue;
    result = result.split(JSON.stringify(secret).slice(1, -1)).join('[redacted]');
    for (const piece of secret.split(CONTROL)) if (piece.length >= 6) result = result.split(piece).join('[redacted]');
  }
  return redactUrlCredentials(result).replace(KEY_LIKE, '[redacted]');
}

/**
 * `https://user:password@host/…` → `https://[redacted]@host/…`, and `?password=…` → `?password=[redacted]`, for
 * every URL in the text.
 */
export function redactUrlCredentials(text: string): string {
  const withoutUserinfo = text.includes('@') ? text.replace(URL_USERINFO, '$1[redacted]@') : text;
  return withoutUserinfo.includes('password=')
    ? withoutUserinfo.replace(URL_PASSWORD_PARAMETER, '$1[redacted]')
    : withoutUserinfo;
}

/** A header's credential as an error may quote it: the value whole, and its token without `Bearer`, `Basic`… */
export function headerCredentials(value: string): string[] {
  const token = value.replace(AUTH_SCHEME, '');
  return (token === value ? [value] : [value, token]).filter((form) => form.trim() !== '');
}
const AUTH_SCHEME = /^(Bearer|Basic|Token)\s+/i;

/**
 * The user name and password of a URL, decoded, to be redacted wherever they might appear on their own (an error
 * quoting a decoded URL, a Basic header); none for a URL without them or one that does not parse.
 */
export function urlCredentials(url: string | undefined): string[] {
  if (!url?.includes('@') && !url?.includes('password=')) return [];
  try {
    const { username, password, searchParams } = new URL(url);
    // searchParams decodes already; the raw form is in the URL's text.
    const parameters = ['password', 'sslpassword'].flatMap((name) => searchParams.getAll(name));
    const raw = [username, password].flatMap((part) => [part, decoded(part)]);
    return [...new Set([...raw, ...parameters, ...parameters.map(encodeURIComponent)])].filter(Boolean);
  } catch {
    return [];
  }
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
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

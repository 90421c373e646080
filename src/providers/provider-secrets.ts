import { headerCredentials, urlCredentials } from '../internal/redact.ts';
import type { ProviderSettings } from './provider.ts';

/**
 * What every provider's errors must never show: its key, the user name and password of its base URL, and the values
 * of its extra headers (often a proxy's token: the value whole, and its token without `Bearer`), but those of
 * headers that name a feature or the caller, which an error may be about. A definition's `secrets` adds its own (a
 * cloud's credentials).
 */
export function secretsOf(settings: Pick<ProviderSettings, 'apiKey' | 'baseURL' | 'headers'>): string[] {
  const headers = Object.entries(settings.headers ?? {})
    .filter(([name]) => !PUBLIC_HEADERS.has(name.toLowerCase()))
    // A value a JavaScript caller set to null (to unset an SDK's default header) is no secret, and no failure.
    .flatMap(([, value]) => (typeof value === 'string' ? headerCredentials(value) : []));
  return [settings.apiKey, ...urlCredentials(settings.baseURL), ...headers].filter(
    (secret): secret is string => !!secret,
  );
}

/** Extra headers that carry no credential: a beta's or version's name, the calling app's title and address. */
const PUBLIC_HEADERS = new Set([
  'anthropic-beta',
  'anthropic-version',
  'openai-beta',
  'http-referer',
  'referer',
  'x-title',
  'user-agent',
]);

import { keySlotsOf } from './key-slots.ts';
import type { ProviderDefinition, ProviderKey, ProviderSettings } from './provider.ts';

/** A setting a provider needs and does not have (or cannot use: `problem` says why). */
export interface MissingSetting {
  /** The variable or option to set (`OPENAI_API_KEY`, `providers.openai.apiKey`). */
  missing: string;
  /** Why the value given cannot be used; absent when there is none. */
  problem?: string;
}

/**
 * Inside a key (leading and trailing whitespace is trimmed by every HTTP client): characters no header can carry.
 * Sent anyway, the SDK's error would quote the header, and the key with it.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a header cannot carry.
const UNSENDABLE = /[\u0000-\u0008\u000a-\u001f\u007f]|[^\u0000-\u00ff]/;

/**
 * Where a provider's key and endpoint come from: its own `resolveCredentials`, else `keyAndEndpoint`.
 */
export function credentialsOf(
  definition: ProviderDefinition,
  configured: ProviderSettings,
  env: Record<string, string | undefined>,
): { apiKey: string; baseURL: string } | MissingSetting {
  return definition.resolveCredentials
    ? definition.resolveCredentials(configured, env)
    : keyAndEndpoint(definition, configured, env);
}

/**
 * The usual key and endpoint: the gateway's settings, else `<PREFIX>_API_KEY` and `<PREFIX>_BASE_URL`, else the
 * provider's default endpoint; the variable to set when one is missing. For a definition's own
 * `resolveCredentials` that adds settings of its own to these.
 */
export function keyAndEndpoint(
  definition: Pick<ProviderDefinition, 'id' | 'envPrefix' | 'defaultBaseURL' | 'requiresApiKey'>,
  configured: ProviderSettings,
  env: Record<string, string | undefined>,
): { apiKey: string; baseURL: string } | MissingSetting {
  const prefix = definition.envPrefix;
  const apiKey = configured.apiKey ?? env[`${prefix}_API_KEY`] ?? (definition.requiresApiKey ? undefined : 'unused');
  if (!apiKey) return { missing: `${prefix}_API_KEY` };
  if (UNSENDABLE.test(apiKey.trim())) {
    return {
      missing: configured.apiKey === undefined ? `${prefix}_API_KEY` : `providers.${definition.id}.apiKey`,
      problem: 'holds a line break or another character that an HTTP header cannot carry',
    };
  }
  // A provider without a shared endpoint (Azure: one per resource) must be configured.
  const baseURL = configured.baseURL ?? env[`${prefix}_BASE_URL`] ?? definition.defaultBaseURL;
  if (!baseURL) return { missing: `${prefix}_BASE_URL` };
  return { apiKey, baseURL };
}

/** The settings a call with one of the provider's keys uses: that key, and its own endpoint when it has one. */
export function settingsWithKey<Settings extends ProviderSettings>(
  settings: Settings,
  key: ProviderKey | undefined,
): Settings {
  return key ? { ...settings, apiKey: key.apiKey, ...(key.baseURL ? { baseURL: key.baseURL } : {}) } : settings;
}

/**
 * Whether a provider can be called as configured, for health, readiness and the startup log: one of its keys
 * (`keys`, a comma-separated `<PREFIX>_API_KEY`, else the one `apiKey`) has what a call with it needs. A provider that
 * needs no key (a local Ollama) counts once its endpoint is set explicitly.
 */
export function hasCredentials(
  definition: ProviderDefinition,
  configured: ProviderSettings,
  env: Record<string, string | undefined>,
): boolean {
  const slots = keySlotsOf(definition.id, configured, env[`${definition.envPrefix}_API_KEY`]);
  return slots.some(({ key }) => {
    const settings = settingsWithKey(configured, key);
    if ('missing' in credentialsOf(definition, settings, env)) return false;
    return definition.requiresApiKey || !!(settings.baseURL ?? env[`${definition.envPrefix}_BASE_URL`]);
  });
}

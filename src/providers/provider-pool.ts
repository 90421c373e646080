import type { MockProvider } from './mock.ts';
import type { Provider, ProviderSettings, ResolvedProviderSettings } from './provider.ts';
import { createPooledFetch } from '../internal/http-transport.ts';
import { providerDefinitions } from './registry.ts';

/** A ready adapter, or the setting that is missing for it (the attempt is then recorded as `missing_credentials`). */
export type ProviderLookup = (name: string) => Promise<Provider | { missing: string }>;

export interface ProviderPoolOptions {
  providers: Record<string, ProviderSettings> | undefined;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  mock: MockProvider | undefined;
}

/**
 * Builds each provider's adapter once, on first use (its SDK is imported then), from the gateway options, else
 * `<PREFIX>_API_KEY`, `<PREFIX>_BASE_URL` and `<PREFIX>_API_VERSION`.
 */
export function createProviderPool(options: ProviderPoolOptions): ProviderLookup {
  const adapters = new Map<string, Promise<Provider | { missing: string }>>();
  // One keep-alive pool for every SDK of this gateway: their default fetch costs ~0.5 ms of CPU per call (bench/).
  let pooledFetch: typeof fetch | undefined;

  async function load(name: string): Promise<Provider | { missing: string }> {
    if (name === 'mock' && options.mock) return options.mock;
    const definition = providerDefinitions.get(name);
    if (!definition) return { missing: `the ${name} adapter (not available in this version of switchyard; pin another provider)` };
    const { env } = options;
    const configured = options.providers?.[name] ?? {};
    const apiKey = configured.apiKey ?? env[`${definition.envPrefix}_API_KEY`] ?? (definition.requiresApiKey ? undefined : 'unused');
    if (!apiKey) return { missing: `${definition.envPrefix}_API_KEY` };
    // Azure has no shared endpoint: each resource has its own, so it must be configured.
    const baseURL = configured.baseURL ?? env[`${definition.envPrefix}_BASE_URL`] ?? definition.defaultBaseURL;
    if (!baseURL) return { missing: `${definition.envPrefix}_BASE_URL` };
    const apiVersion = configured.apiVersion ?? env[`${definition.envPrefix}_API_VERSION`];
    const settings: ResolvedProviderSettings = {
      ...configured,
      fetch: configured.fetch ?? (pooledFetch ??= createPooledFetch({ env, timeoutMs: options.timeoutMs })),
      apiKey,
      baseURL,
      timeoutMs: configured.timeoutMs ?? options.timeoutMs,
      ...(apiVersion ? { apiVersion } : {}),
    };
    return definition.load(settings);
  }

  return (name) => {
    let adapter = adapters.get(name);
    if (!adapter) {
      adapter = load(name);
      adapters.set(name, adapter);
    }
    return adapter;
  };
}

/**
 * The providers configured for this gateway, read as the pool reads them (settings, else `<PREFIX>_API_KEY` and
 * `<PREFIX>_BASE_URL`): those with a key and an endpoint, and those that need no key (a local Ollama) once their
 * endpoint is set. For startup logs and health checks; never the keys themselves.
 */
export function providersWithCredentials(options: Pick<ProviderPoolOptions, 'providers' | 'env'>): string[] {
  const names: string[] = [];
  for (const [name, definition] of providerDefinitions) {
    const configured = options.providers?.[name] ?? {};
    const apiKey = configured.apiKey ?? options.env[`${definition.envPrefix}_API_KEY`];
    const baseURL = configured.baseURL ?? options.env[`${definition.envPrefix}_BASE_URL`];
    if (definition.requiresApiKey ? apiKey && (baseURL ?? definition.defaultBaseURL) : baseURL) names.push(name);
  }
  return names;
}

import type { MockProvider } from './mock/simulator.ts';
import type { Provider, ProviderSettings, ResolvedProviderSettings } from './provider.ts';
import { DEFAULT_MAX_RESPONSE_BYTES, createPooledFetch, withResponseLimit } from '../internal/http-transport.ts';
import { providerDefinitions } from './registry.ts';

/** A ready adapter, or the setting that is missing for it (the attempt is then recorded as `missing_credentials`). */
export type ProviderLookup = (name: string) => Promise<Provider | { missing: string }>;

export interface ProviderPoolOptions {
  providers: Record<string, ProviderSettings> | undefined;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  mock: MockProvider | undefined;
  /** The HTTP transport's limits: answer size and connections per provider. */
  transport?: { maxResponseBytes?: number | undefined; connections?: number | undefined };
}

/**
 * Builds each provider's adapter once, on first use (its SDK is imported then), from the gateway options, else
 * `<PREFIX>_API_KEY`, `<PREFIX>_BASE_URL` and `<PREFIX>_API_VERSION`.
 */
export function createProviderPool(options: ProviderPoolOptions): ProviderLookup {
  const adapters = new Map<string, Promise<Provider | { missing: string }>>();
  // One keep-alive pool for every SDK of this gateway: their default fetch costs ~0.5 ms of CPU per call (bench/).
  let pooledFetch: typeof fetch | undefined;
  const maxResponseBytes = options.transport?.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const transport = {
    env: options.env,
    timeoutMs: options.timeoutMs,
    maxResponseBytes,
    ...(options.transport?.connections !== undefined ? { connections: options.transport.connections } : {}),
  };

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
      fetch: configured.fetch ? withResponseLimit(configured.fetch, maxResponseBytes) : (pooledFetch ??= createPooledFetch(transport)),
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

import { DEFAULT_MAX_RESPONSE_BYTES, createPooledFetch, withResponseLimit } from '../internal/http-transport.ts';
import type { MockProvider } from './mock/simulator.ts';
import { standIn } from './mock/stand-in.ts';
import type { Provider, ProviderSettings, ResolvedProviderSettings } from './provider.ts';
import type { ProviderRegistry } from './registry.ts';

/** A ready adapter, or the setting that is missing for it (the attempt is then recorded as `missing_credentials`). */
export type ProviderLookup = (name: string) => Promise<Provider | { missing: string }>;

export interface ProviderPoolOptions {
  registry: ProviderRegistry;
  providers: Record<string, ProviderSettings> | undefined;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  /** Mock mode: this simulator answers for every provider, after that provider's own request conversion. */
  simulator: MockProvider | undefined;
  /** The HTTP transport's limits: answer size and connections per provider. */
  transport?: { maxResponseBytes?: number | undefined; connections?: number | undefined };
}

/**
 * Builds each provider's adapter once, on first use (its SDK is imported then), from the gateway options, else
 * `<PREFIX>_API_KEY`, `<PREFIX>_BASE_URL` and `<PREFIX>_API_VERSION`. In mock mode every provider is the
 * simulator standing in for it: no key needed, nothing sent.
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
    const definition = options.registry.get(name);
    if (options.simulator) return standIn(options.simulator, definition);
    if (!definition) return { missing: `the ${name} adapter (not available in this version of switchyard; pin another provider)` };
    const { env } = options;
    const configured = options.providers?.[name] ?? {};
    const apiKey = configured.apiKey ?? env[`${definition.envPrefix}_API_KEY`] ?? (definition.requiresApiKey ? undefined : 'unused');
    if (!apiKey) return { missing: `${definition.envPrefix}_API_KEY` };
    // A provider without a shared endpoint (Azure: one per resource) must be configured.
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
    return definition.create(settings);
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

import { redactSecrets } from '../internal/redact.ts';
import { DEFAULT_MAX_RESPONSE_BYTES, withResponseLimit } from '../internal/response-limit.ts';
import { envVariable } from '../internal/runtime.ts';
import { credentialsOf, hasCredentials, type MissingSetting, settingsWithKey } from './credentials.ts';
import { KeyHealth, type KeySlot, keySlotsOf } from './key-slots.ts';
import type { MockProvider } from './mock/simulator.ts';
import { standIn } from './mock/stand-in.ts';
import type { Provider, ProviderSettings, ProviderTransport, ResolvedProviderSettings } from './provider.ts';
import { secretsOf } from './provider-secrets.ts';
import type { ProviderRegistry } from './registry.ts';
import { fetchSender } from './wire/fetch-sender.ts';
import { runtimeTransport, type SharedTransport } from './wire/runtime-transport.ts';

/**
 * A ready adapter, or the setting that is missing (or unusable: `problem` says why) for it; the attempt is then
 * recorded as `missing_credentials`.
 */
export interface ProviderLookup {
  /** The adapter of one of the provider's keys (`key`: a slot index of `keys(name)`, default the first). */
  (name: string, key?: number): Promise<Provider | MissingSetting>;
  /** The provider's keys: one slot unless several are configured. */
  keys(name: string): KeySlot[];
  /** Which keys rest after failing; shared by every call of the gateway. */
  readonly health: KeyHealth;
}

export interface ProviderPoolOptions {
  registry: ProviderRegistry;
  providers: Record<string, ProviderSettings | undefined> | undefined;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  /**
   * Mock mode: this simulator answers for every provider, after that provider's own request conversion; or the
   * function that loads it on the first call (`mock: true`: a page's bundle carries it only once it is used).
   */
  simulator: MockProvider | (() => Promise<MockProvider>) | undefined;
  /** The HTTP transport's limits: answer size and connections per provider. */
  transport?: { maxResponseBytes?: number | undefined; connections?: number | undefined };
  /** The gateway's `transport`, for providers that set none. */
  defaultTransport?: ProviderTransport | undefined;
}

/**
 * Builds each provider's adapter once, on first use (its SDK is imported then), from the gateway options, else
 * `<PREFIX>_API_KEY` and `<PREFIX>_BASE_URL` (or where the definition's `resolveCredentials` says). In mock mode
 * every provider is the
 * simulator standing in for it: no key needed, nothing sent.
 */
export function createProviderPool(options: ProviderPoolOptions): ProviderLookup {
  const adapters = new Map<string, Promise<Provider | MissingSetting>>();
  // One transport for every provider of this gateway, the wire transports' and the SDKs': on Node.js a keep-alive
  // pool (their default fetch costs ~0.5 ms of CPU per call, bench/), elsewhere the runtime's fetch.
  let shared: SharedTransport | undefined;
  const sharedPool = () => {
    shared ??= runtimeTransport(transport);
    return shared;
  };
  const defaultTransport = options.defaultTransport ?? transportFromEnvironment();
  const maxResponseBytes = options.transport?.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const transport = {
    env: options.env,
    timeoutMs: options.timeoutMs,
    maxResponseBytes,
    ...(options.transport?.connections !== undefined ? { connections: options.transport.connections } : {}),
  };

  // A caller's own fetch is theirs to bound, unless they set maxResponseBytes: limiting a stream that arrives through
  // it costs a web stream per answer, where the pooled transport counts on the wire for nothing.
  const explicitLimit = options.transport?.maxResponseBytes;
  const ownFetch = (fetchImpl: typeof fetch) =>
    explicitLimit === undefined ? fetchImpl : withResponseLimit(fetchImpl, explicitLimit);

  const slots = new Map<string, KeySlot[]>();
  const keysOf = (name: string): KeySlot[] => {
    let found = slots.get(name);
    if (!found) {
      const prefix = options.registry.get(name)?.envPrefix;
      found = options.simulator
        ? [{ index: 0, label: undefined, weight: 1, key: undefined }]
        : keySlotsOf(name, options.providers?.[name] ?? {}, prefix && options.env[`${prefix}_API_KEY`]);
      slots.set(name, found);
    }
    return found;
  };

  async function load(name: string, index: number, id: string): Promise<Provider | MissingSetting> {
    const definition = options.registry.get(name);
    const { simulator } = options;
    if (simulator) return standIn(typeof simulator === 'function' ? await simulator() : simulator, definition);
    if (!definition)
      return { missing: `the ${name} adapter (not available in this version of switchyard; pin another provider)` };
    const key = keysOf(name)[index]?.key;
    const base = options.providers?.[name] ?? {};
    const configured = settingsWithKey(base, key);
    const found = credentialsOf(definition, configured, options.env);
    if ('missing' in found) return found;
    const resolved = { ...configured, ...found };
    const secrets = [...secretsOf(resolved), ...(definition.secrets?.(resolved) ?? [])];
    const fetchImpl = configured.fetch ? ownFetch(configured.fetch) : sharedPool().fetch;
    const settings: ResolvedProviderSettings = {
      ...resolved,
      fetch: fetchImpl,
      timeoutMs: configured.timeoutMs ?? options.timeoutMs,
      secrets: secrets.filter((secret): secret is string => !!secret),
      transport: configured.transport ?? defaultTransport,
      send: configured.fetch ? fetchSender(fetchImpl) : sharedPool().send,
    };
    try {
      return await definition.create(settings);
    } catch (error) {
      // An adapter that cannot be built (options its SDK refuses, a key that does not parse) makes this provider
      // unusable, like a missing key: the chain goes on. Not kept: the next call tries to build it again.
      adapters.delete(id);
      const detail = redactSecrets(error instanceof Error ? error.message : String(error), settings.secrets);
      return { missing: `providers.${name}`, problem: `could not be used: ${detail}` };
    }
  }

  const lookup = (name: string, key = 0) => {
    const id = key === 0 ? name : `${name}#${key}`;
    let adapter = adapters.get(id);
    if (!adapter) {
      adapter = load(name, key, id);
      adapters.set(id, adapter);
    }
    return adapter;
  };
  return Object.assign(lookup, { keys: keysOf, health: new KeyHealth() });
}

/** `SWITCHYARD_TRANSPORT=sdk` sends every provider through its SDK: an operator's switch, no code change. */
function transportFromEnvironment(): ProviderTransport {
  const chosen = envVariable('SWITCHYARD_TRANSPORT');
  if (chosen === undefined || chosen === '' || chosen === 'wire') return 'wire';
  if (chosen === 'sdk') return 'sdk';
  throw new Error(`SWITCHYARD_TRANSPORT must be "wire" or "sdk", not ${JSON.stringify(chosen)}.`);
}

/**
 * The providers that can be called: those with a key and an endpoint, and those that need no key (a local Ollama)
 * once their endpoint is set explicitly. For startup logs and health checks; never the keys themselves.
 */
export function providersWithCredentials(
  options: Pick<ProviderPoolOptions, 'registry' | 'providers' | 'env'>,
): string[] {
  return [...options.registry.definitions]
    .filter((definition) => hasCredentials(definition, options.providers?.[definition.id] ?? {}, options.env))
    .map((definition) => definition.id);
}

import type Anthropic from '@anthropic-ai/sdk';
import type { ResponseCreateParams } from 'openai/resources/responses/responses';
import type { BudgetOptions } from './budgets/budget-ledger.ts';
import { budgetStage } from './budgets/call-budget.ts';
import type { ResponseCacheOptions } from './cache/response-cache.ts';
import { responseCacheStage } from './cache/response-cache-stage.ts';
import type { Catalog } from './catalog/catalog.ts';
import type { CatalogRefreshOptions } from './catalog/catalog-refresh.ts';
import { defaultCatalog } from './catalog/default-catalog.ts';
import { DeferredRefresher } from './catalog/deferred-refresher.ts';
import { type ModelDeprecation, oncePerModel } from './catalog/model-lifecycle.ts';
import { createCompletion } from './completion/create-completion.ts';
import type { CompletionOptions } from './completion/resolve-request.ts';
import type { Routing } from './completion/route-offerings.ts';
import { DEFAULT_RETRY, type RetryOptions, retryPolicy } from './completion/run-attempts.ts';
import type { Services } from './completion/services.ts';
import { createDeploymentStore } from './deployments/create-store.ts';
import type { DeploymentStore } from './deployments/store.ts';
import { annotationsAndExperiments } from './experiments/gateway-experiments.ts';
import type { GuardrailOptions } from './guardrails/options.ts';
import { processEnv } from './internal/runtime.ts';
import type { MockProvider } from './providers/mock/simulator.ts';
import type { ProviderTransport } from './providers/provider.ts';
import { createProviderPool, providersWithCredentials } from './providers/provider-pool.ts';
import { everyProvider, ProviderRegistry, type ProvidersSettings } from './providers/registry.ts';
import { createCallRecorder, type RecordOptions } from './records/call-recorder.ts';
import type { CallStore } from './records/call-store.ts';
import { StoredCalls } from './records/stored-calls.ts';
import { openStores, type Stores } from './stores/open-stores.ts';
import { type SchemaValidatorOptions, schemaValidatorSetting } from './structured-output/schema-engines.ts';
import { DEFAULT_MAX_RENDERED_BYTES } from './templates.ts';
import type { CompletionRequest, CompletionResponse, HedgeSetting } from './types.ts';

export type { CompletionOptions } from './completion/resolve-request.ts';

import type { Gateway } from './gateway-api.ts';

export type { Gateway };

export interface GatewayOptions extends SchemaValidatorOptions, GuardrailOptions {
  /**
   * Dollar budgets checked before each call: `{ perTrace: 2.5 }` refuses a trace's next call once it has spent $2.50
   * (`BudgetExceededError`, 402 insufficient_quota); `rules` for agents, workflows, keys per day or month.
   */
  budgets?: BudgetOptions | undefined;
  /**
   * Per-provider settings; anything left out comes from `<NAME>_API_KEY` / `<NAME>_BASE_URL`. A provider of your own
   * is added here with its `definition` (see docs/providers.md, "Your own provider").
   */
  providers?: ProvidersSettings | undefined;
  /** Where to read `<NAME>_API_KEY` / `<NAME>_BASE_URL` (default `process.env`; none that Deno may not read). */
  env?: Record<string, string | undefined>;
  /**
   * Told, once per model, the first time a call asks for a model its maker deprecated (every such call also carries
   * a `model_deprecated` warning). `switchyard serve` logs it.
   */
  onModelDeprecated?: ((deprecation: ModelDeprecation) => void) | undefined;
  /** `true` answers every model with the simulator; a `MockProvider` lets a test script the replies. */
  mock?: boolean | MockProvider | undefined;
  /** Models tried, in order, after every provider of the requested model failed (per request: `fallbacks`). */
  fallbacks?: string[] | undefined;
  /** Which of a model's offerings goes first unless a call says: `order` (default), `cost`, `latency`. */
  routing?: Routing | undefined;
  /** Send the next candidate too when the first has produced nothing after `afterMs` (per call: `hedge`). Off. */
  hedge?: HedgeSetting | undefined;
  /** A stream broken after content goes on at the next candidate, spliced in (per call: `stream_failover`). On. */
  streamFailover?: boolean | undefined;
  retry?: RetryOptions | undefined;
  /** Time one provider attempt may take, in milliseconds (default 10 minutes, as openai-node). */
  timeoutMs?: number | undefined;
  /**
   * Streams: time from an attempt's start to its first content (text, reasoning, a tool call); past it the attempt is
   * aborted and retried, or falls back (nothing has reached the caller yet). Default: none.
   */
  firstTokenTimeoutMs?: number | undefined;
  /**
   * Streams: the longest wait for the provider's next chunk. Before the first content reaches the caller it fails
   * the attempt (retried); after, it ends the stream with a StreamInterruptedError. Default: none.
   */
  streamIdleTimeoutMs?: number | undefined;
  /**
   * Largest answer body read from a provider, in bytes (default 64 MiB), on the wire and decoded: past it, fails with
   * response_too_large. A `fetch` you pass in a provider's settings is held to it only when you set this option.
   */
  maxResponseBytes?: number | undefined;
  /**
   * Connections kept to each provider (default 128). Calls beyond it wait for a free one; `switchyard serve` also
   * limits calls per API key, so that one key cannot hold them all.
   */
  maxConnectionsPerProvider?: number | undefined;
  /** `wire` (default): providers' HTTP APIs spoken directly; `sdk`: the official SDKs (docs/providers.md). */
  transport?: ProviderTransport | undefined;
  /**
   * The most UTF-8 bytes that templating (`input` filling `{{variables}}`) may write into one request's messages,
   * all texts together (default 8 MiB). A value referenced many times multiplies: past the bound the call is a 400
   * `template_too_large` naming the variable, found while rendering, before the text is built.
   */
  maxRenderedBytes?: number | undefined;
  /** Throw `UnsupportedParameterError` instead of dropping a parameter the model cannot take with a warning. */
  strict?: boolean | undefined;
  /**
   * `auto` places Anthropic prompt-cache breakpoints on every call (end of tools, system prompt and latest message),
   * besides the caller's `cache_control` marks; a request's `prompt_cache` overrides it. Default `false`: only the
   * caller's marks. See docs/caching.md.
   */
  promptCache?: 'auto' | false | undefined;
  /** A catalog to use instead of the bundled one (`extendCatalog(rows | file)` adds yours to it). */
  catalog?: Catalog | undefined;
  /**
   * Keeps the catalog current from a public list (models.dev, OpenRouter, or catalog rows at a URL) in the
   * background: new models and prices on top of `catalog`. A failed refresh keeps the last good catalog.
   */
  catalogRefresh?: CatalogRefreshOptions | undefined;
  /**
   * Where deployments (`model: "switchyard/deployment/<id>"`) live: a directory of JSON/YAML files, the URL of a
   * `switchyard serve` (key from `SWITCHYARD_API_KEY`), or any `DeploymentStore`.
   */
  deployments?: string | DeploymentStore | undefined;
  /** Call records: sinks (default: memory, `gateway.calls`), queues, `redact: true` (texts "[redacted]"); false: off */
  records?: false | RecordOptions | undefined;
  /** The response cache (docs/caching.md). Without it, calls asking `cache: auto | always` use memory; false: off. */
  cache?: false | ResponseCacheOptions | undefined;
  /**
   * The stores of one database (`openStores`): call records (the default sink, and `gateway.calls`), annotations,
   * experiments and (unless `deployments` is given) deployments are kept there. Without it, annotations and
   * experiments are kept beside the first sink that answers queries (the same SQLite file or PostgreSQL database),
   * else in memory.
   */
  stores?: Stores | undefined;
}

/**
 * A gateway: the catalog, the providers (built on first use), the deployment store and the call recorder that
 * every call of it shares. The work of one call is `createCompletion` in `src/completion/`.
 */
/** The media calls, imported on the first one. */
const media = () => import('./media/media-calls.ts');

export function createGateway(options: GatewayOptions = {}): Gateway {
  const registry = new ProviderRegistry(everyProvider(options.providers));
  const baseCatalog = options.catalog ?? defaultCatalog();
  const refresher = options.catalogRefresh && new DeferredRefresher(baseCatalog, options.catalogRefresh, registry);
  const currentCatalog = () => refresher?.catalog ?? baseCatalog;
  // `mock: true`'s simulator is imported on the first call, so a page's bundle does not carry it otherwise.
  let simulated: Promise<MockProvider> | undefined;
  const simulator =
    options.mock === true
      ? () => (simulated ??= import('./providers/mock/simulator.ts').then(({ MockProvider }) => new MockProvider()))
      : options.mock || undefined;
  const env = options.env ?? processEnv();
  const timeoutMs = options.timeoutMs ?? 600_000;
  const getProvider = createProviderPool({
    registry,
    providers: options.providers,
    env,
    timeoutMs,
    simulator,
    transport: { maxResponseBytes: options.maxResponseBytes, connections: options.maxConnectionsPerProvider },
    defaultTransport: options.transport,
  });
  const deployments =
    options.deployments === undefined
      ? options.stores?.deployments
      : createDeploymentStore(options.deployments, { env });
  const recorder = createCallRecorder(options.records, options.stores && (() => options.stores!.calls));
  const { annotations, experiments } = annotationsAndExperiments({
    recorder,
    stores: options.stores ?? storesBeside(recorder.calls),
    deployments,
    catalog: currentCatalog,
    gateway: { fallbacks: options.fallbacks ?? [], hedge: options.hedge },
    complete: (request, callOptions) =>
      createCompletion(services, { ...request, stream: false }, callOptions) as Promise<CompletionResponse>,
  });
  const configuredProviders = () => providersWithCredentials({ registry, providers: options.providers, env });
  const services: Services = {
    get catalog() {
      return currentCatalog();
    },
    registry,
    getProvider,
    recorder,
    deployments,
    budgets: options.budgets && budgetStage(options.budgets),
    cache: responseCacheStage(options.cache),
    // The simulator stands in for every provider, so each may be suggested.
    configuredProviders: simulator
      ? () => [...registry.definitions].map((definition) => definition.id)
      : configuredProviders,
    guardrails: [...(options.guardrails ?? [])],
    modelDeprecated: options.onModelDeprecated && oncePerModel(options.onModelDeprecated),
    settings: {
      strict: options.strict ?? false,
      promptCache: options.promptCache ?? false,
      fallbacks: options.fallbacks ?? [],
      routing: options.routing,
      hedge: options.hedge,
      streamFailover: options.streamFailover ?? true,
      retry: retryPolicy(DEFAULT_RETRY, options.retry),
      timeoutMs,
      streamTimeouts: { firstTokenMs: options.firstTokenTimeoutMs, idleMs: options.streamIdleTimeoutMs },
      providers: options.providers,
      maxRenderedBytes: options.maxRenderedBytes ?? DEFAULT_MAX_RENDERED_BYTES,
      schemaValidator: schemaValidatorSetting(options.schemaValidator),
      sensitiveData: options.sensitiveData,
    },
  };

  return {
    createCompletion: ((request: CompletionRequest, callOptions?: CompletionOptions) =>
      createCompletion(services, request, callOptions)) as Gateway['createCompletion'],
    // The dialects load on their first call: an application (or a page's bundle) that only makes chat completions
    // never loads them.
    createMessage: (async (params: Anthropic.MessageCreateParams, callOptions?: CompletionOptions) =>
      (await import('./dialects/messages/create-message.ts')).createMessage(
        services,
        params,
        callOptions,
      )) as Gateway['createMessage'],
    createResponse: (async (params: ResponseCreateParams, callOptions?: CompletionOptions) =>
      (await import('./dialects/responses/create-response.ts')).createResponse(
        services,
        params,
        callOptions,
      )) as Gateway['createResponse'],
    // Embeddings, as the dialects, load on their first call.
    createEmbedding: async (request, callOptions) =>
      (await import('./embeddings/create-embedding.ts')).createEmbedding(services, request, callOptions),
    // Loaded on the first media call, so the core's bundle does not carry them.
    createImage: async (request, callOptions) => (await media()).createImage(services, request, callOptions),
    editImage: async (request, callOptions) => (await media()).editImage(services, request, callOptions),
    createSpeech: async (request, callOptions) => (await media()).createSpeech(services, request, callOptions),
    createTranscription: async (request, callOptions) =>
      (await media()).createTranscription(services, request, callOptions),
    listModels: (listOptions) => currentCatalog().list(listOptions),
    listMediaModels: async (filter) => (await media()).mediaModelRows(filter?.output_modality),
    listDeployments: async (filter) => (deployments ? deployments.list(filter) : []),
    calls: recorder.calls,
    annotations,
    experiments,
    get recordStats() {
      return recorder.stats;
    },
    flush: recorder.flush,
    close: async () => {
      refresher?.stop();
      await recorder.close();
      await services.cache.close();
    },
    get catalog() {
      return currentCatalog();
    },
    refreshCatalog: async () => refresher?.refresh(),
    configuredProviders: () => (simulator ? ['mock' satisfies MockProvider['name']] : configuredProviders()),
  };
}

/** The stores of the records' database, when the sink that answers queries is one (`StoredCalls`); else memory. */
function storesBeside(calls: CallStore): Stores {
  return calls instanceof StoredCalls ? openStores(calls.engine, calls) : openStores({ engine: 'memory' });
}

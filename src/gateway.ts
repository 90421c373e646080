import type Anthropic from '@anthropic-ai/sdk';
import type { AutoParseableResponseFormat } from 'openai/lib/parser';
import type {
  ResponseCreateParams,
  ResponseCreateParamsNonStreaming,
  ResponseCreateParamsStreaming,
} from 'openai/resources/responses/responses';
import type { Annotations } from './annotations/annotations.ts';
import { BudgetLedger, type BudgetOptions } from './budgets/budget-ledger.ts';
import { type ResponseCacheOptions, responseCacheOf } from './cache/response-cache.ts';
import type { Catalog, ListModelsOptions, ModelList } from './catalog/catalog.ts';
import { CatalogRefresher, type CatalogRefreshOptions, type CatalogRefreshStatus } from './catalog/catalog-refresh.ts';
import { defaultCatalog } from './catalog/default-catalog.ts';
import { type ModelDeprecation, oncePerModel } from './catalog/model-lifecycle.ts';
import type { CompletionStream } from './completion/completion-stream.ts';
import { createCompletion } from './completion/create-completion.ts';
import type { CompletionOptions } from './completion/resolve-request.ts';
import type { Routing } from './completion/route-offerings.ts';
import { DEFAULT_RETRY, type RetryOptions, retryPolicy } from './completion/run-attempts.ts';
import type { Services } from './completion/services.ts';
import { createDeploymentStore } from './deployments/create-store.ts';
import type { Deployment } from './deployments/deployment.ts';
import type { DeploymentStore } from './deployments/store.ts';
import { createMessage } from './dialects/messages/create-message.ts';
import type { SwitchyardMessage } from './dialects/messages/from-chat.ts';
import type { MessageEventStream } from './dialects/messages/stream-events.ts';
import { createResponse } from './dialects/responses/create-response.ts';
import type { SwitchyardResponse } from './dialects/responses/from-chat.ts';
import type { ResponseEventStream } from './dialects/responses/stream-events.ts';
import { createEmbedding } from './embeddings/create-embedding.ts';
import type { EmbeddingRequest, EmbeddingResponse } from './embeddings/embedding-types.ts';
import type { Experiments } from './experiments/experiments-api.ts';
import { annotationsAndExperiments } from './experiments/gateway-experiments.ts';
import { processEnv } from './internal/runtime.ts';
import { MockProvider } from './providers/mock/simulator.ts';
import type { ProviderTransport } from './providers/provider.ts';
import { createProviderPool, providersWithCredentials } from './providers/provider-pool.ts';
import { everyProvider, ProviderRegistry, type ProvidersSettings } from './providers/registry.ts';
import { createCallRecorder, type RecordOptions } from './records/call-recorder.ts';
import type { CallStore } from './records/call-store.ts';
import type { RecordQueueStats } from './records/record-queue.ts';
import { DEFAULT_MAX_RENDERED_BYTES } from './templates.ts';
import type {
  CompletionRequest,
  CompletionRequestNonStreaming,
  CompletionRequestStreaming,
  CompletionResponse,
  HedgeSetting,
  ParsedCompletionResponse,
} from './types.ts';

export type { CompletionOptions } from './completion/resolve-request.ts';

export interface GatewayOptions {
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
   * Streams: time from the start of an attempt to its first content (text, reasoning, a tool call). Past it the
   * attempt is aborted and retried, or falls back, as nothing has reached the caller yet. Default: none.
   */
  firstTokenTimeoutMs?: number | undefined;
  /**
   * Streams: the longest wait for the provider's next chunk. Before the first content reaches the caller it fails
   * the attempt (retried); after, it ends the stream with a StreamInterruptedError. Default: none.
   */
  streamIdleTimeoutMs?: number | undefined;
  /**
   * Largest answer body read from a provider, in bytes (default 64 MiB), counted on the wire and again decoded; a
   * larger one fails with response_too_large. A `fetch` you pass in a provider's settings is held to it only when
   * you set this option.
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
  /**
   * Call records: where they go (default: a bounded in-memory sink, queryable as `gateway.calls`), queue sizes, and
   * `redact: true` to store message contents and answers as "[redacted]". `false` turns recording off.
   */
  records?: false | RecordOptions | undefined;
  /** The response cache (docs/caching.md). Without it, calls asking `cache: auto | always` use memory; false: off. */
  cache?: false | ResponseCacheOptions | undefined;
}

export interface Gateway {
  /** Notes and metrics on recorded calls and experiment cells (docs/observability.md#annotations). */
  readonly annotations: Annotations;
  /** Versions × inputs of an agent, run through this gateway and compared (docs/experiments.md). */
  readonly experiments: Experiments;
  createCompletion(request: CompletionRequestStreaming, options?: CompletionOptions): Promise<CompletionStream>;
  createCompletion<Parsed>(
    request: CompletionRequestNonStreaming & { response_format: AutoParseableResponseFormat<Parsed> },
    options?: CompletionOptions,
  ): Promise<ParsedCompletionResponse<Parsed>>;
  createCompletion(request: CompletionRequestNonStreaming, options?: CompletionOptions): Promise<CompletionResponse>;
  createCompletion(
    request: CompletionRequest,
    options?: CompletionOptions,
  ): Promise<CompletionResponse | CompletionStream>;
  /**
   * The same call in the Anthropic Messages API's shapes (what Claude Code and Anthropic's SDKs send), for every
   * model. See docs/messages-api.md.
   */
  createMessage(
    params: Anthropic.MessageCreateParamsStreaming,
    options?: CompletionOptions,
  ): Promise<MessageEventStream>;
  createMessage(
    params: Anthropic.MessageCreateParamsNonStreaming,
    options?: CompletionOptions,
  ): Promise<SwitchyardMessage>;
  createMessage(
    params: Anthropic.MessageCreateParams,
    options?: CompletionOptions,
  ): Promise<SwitchyardMessage | MessageEventStream>;
  /**
   * The same call in OpenAI's Responses API shapes (what the Agents SDK and Codex send), for every model. See
   * docs/responses-api.md.
   */
  createResponse(params: ResponseCreateParamsStreaming, options?: CompletionOptions): Promise<ResponseEventStream>;
  createResponse(params: ResponseCreateParamsNonStreaming, options?: CompletionOptions): Promise<SwitchyardResponse>;
  createResponse(
    params: ResponseCreateParams,
    options?: CompletionOptions,
  ): Promise<SwitchyardResponse | ResponseEventStream>;
  /** Embeddings in OpenAI's shapes, for the catalog's embedding models or `<provider>/<id>`. See docs/embeddings.md. */
  createEmbedding(request: EmbeddingRequest, options?: CompletionOptions): Promise<EmbeddingResponse>;
  /** The catalog in the OpenAI `/v1/models` shape. */
  listModels(options?: ListModelsOptions): ModelList;
  /** The stored deployments, optionally of one agent (empty without a deployment store). */
  listDeployments(filter?: { agent_id?: string }): Promise<Deployment[]>;
  /** Queries over the call records (the first sink that answers queries: memory by default, or SQLite). */
  readonly calls: CallStore;
  /** Record counters: waiting, written, dropped (queue full), failed in a sink, built in part, the last loss. */
  readonly recordStats: RecordQueueStats;
  /** Resolves once every record of the calls made so far has been written. */
  flush(): Promise<void>;
  /** Flushes the records and closes the sinks (and stops refreshing the catalog). */
  close(): Promise<void>;
  /** The catalog in use: the latest good one when `catalogRefresh` is set. */
  readonly catalog: Catalog;
  /** With `catalogRefresh`: refreshes now (never rejects) and says what happened; `undefined` without it. */
  refreshCatalog(): Promise<CatalogRefreshStatus | undefined>;
  /** The providers this gateway can call (credentials found; never the keys); `["mock"]` in mock mode. */
  configuredProviders(): string[];
}

/**
 * A gateway: the catalog, the providers (built on first use), the deployment store and the call recorder that
 * every call of it shares. The work of one call is `createCompletion` in `src/completion/`.
 */
export function createGateway(options: GatewayOptions = {}): Gateway {
  const registry = new ProviderRegistry(everyProvider(options.providers));
  const baseCatalog = options.catalog ?? defaultCatalog();
  const refresher = options.catalogRefresh && new CatalogRefresher(baseCatalog, options.catalogRefresh, registry);
  refresher?.start();
  const currentCatalog = () => refresher?.catalog ?? baseCatalog;
  const simulator = options.mock === true ? new MockProvider() : options.mock || undefined;
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
    options.deployments === undefined ? undefined : createDeploymentStore(options.deployments, { env });
  const recorder = createCallRecorder(options.records);
  const { annotations, experiments } = annotationsAndExperiments({
    recorder,
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
    budgets: options.budgets ? new BudgetLedger(options.budgets) : undefined,
    cache: responseCacheOf(options.cache),
    // The simulator stands in for every provider, so each may be suggested.
    configuredProviders: simulator
      ? () => [...registry.definitions].map((definition) => definition.id)
      : configuredProviders,
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
    },
  };

  return {
    createCompletion: ((request: CompletionRequest, callOptions?: CompletionOptions) =>
      createCompletion(services, request, callOptions)) as Gateway['createCompletion'],
    createMessage: ((params: Anthropic.MessageCreateParams, callOptions?: CompletionOptions) =>
      createMessage(services, params, callOptions)) as Gateway['createMessage'],
    createResponse: ((params: ResponseCreateParams, callOptions?: CompletionOptions) =>
      createResponse(services, params, callOptions)) as Gateway['createResponse'],
    createEmbedding: (request, callOptions) => createEmbedding(services, request, callOptions),
    listModels: (listOptions) => currentCatalog().list(listOptions),
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
      await services.cache?.store.close?.();
    },
    get catalog() {
      return currentCatalog();
    },
    refreshCatalog: async () => refresher?.refresh(),
    configuredProviders: () => (simulator ? [simulator.name] : configuredProviders()),
  };
}

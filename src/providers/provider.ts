import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import type { ModelEntry } from '../catalog/catalog-schema.ts';
import type { ModelProfile } from '../catalog/model-profile.ts';
import type { ResolvedReasoning } from '../reasoning.ts';
import type { OutputSpec } from '../structured-output/output-spec.ts';
import type { StrictPlan } from '../structured-output/strict-json-schema.ts';
import type { CompletionChunk, CompletionResponse, CompletionWarning } from '../types.ts';
import type { EmbeddingCall, ProviderEmbedding } from './embedding-api.ts';
import type { MediaApi, MediaCapabilities } from './media-api.ts';
import type { HttpSender } from './wire/http-sender.ts';

/**
 * The one interface every provider adapter implements. Requests and results are OpenAI-shaped: adapters of the
 * OpenAI family pass them through nearly untouched, the others translate at their edge.
 */
export interface Provider {
  readonly name: string;
  complete(call: ProviderCall): Promise<ProviderCompletion>;
  /**
   * Resolves once the provider accepted the request (its response headers arrived); the iterable then yields
   * OpenAI chunks, the last one carrying `usage` with empty `choices`.
   */
  stream(call: ProviderCall): Promise<AsyncIterable<CompletionChunk>>;
  /** Embeddings and media (`media-api.ts`) where the provider has those APIs (absent: the gateway says so). */
  embed?(call: EmbeddingCall): Promise<ProviderEmbedding>;
  readonly media?: MediaApi | undefined;
}

/**
 * Everything Switchyard knows of one provider, owned by the provider's own folder: its id, where its settings come
 * from, what it can do, and how to build its adapter. The registry is a list of these; nothing outside a provider's
 * folder asks which provider it is. Export one to plug your own provider into `createGateway({ providers })`.
 */
export interface ProviderDefinition<Own extends object = object> {
  /** The id used in `<provider>/<model>` and in the catalog's offerings (lower-case letters, digits, `-`). */
  readonly id: string;
  /** Prefix of the environment variables read: `<PREFIX>_API_KEY`, `<PREFIX>_BASE_URL`. */
  readonly envPrefix: string;
  /** Used when neither the options nor the environment give one; `''` when every user must set one (Azure). */
  readonly defaultBaseURL: string;
  /** `false` for providers that take no key (a local Ollama). */
  readonly requiresApiKey: boolean;
  readonly capabilities: ProviderCapabilities;
  /**
   * What is assumed of a model the catalog does not list, called as `<provider>/<any id>`: parameters pass through,
   * reasoning goes in this provider's own knob. Default: `OPENAI_STYLE_PROFILE`.
   */
  readonly uncatalogued?: ModelProfile;
  /**
   * `gen_ai.provider.name` in OpenTelemetry spans: the GenAI semantic conventions' name of the provider
   * (`aws.bedrock`, `gcp.vertex_ai`, …). Default: the id.
   */
  readonly otelName?: string;
  /**
   * Where the provider's credentials and endpoint come from, for providers that are not one key and one URL (a
   * cloud's credential chain and regions), and its own settings (`Own`) from the environment. Default: `apiKey` /
   * `<PREFIX>_API_KEY` and `baseURL` / `<PREFIX>_BASE_URL` (`keyAndEndpoint`).
   */
  resolveCredentials?(
    configured: ProviderSettings & Own,
    env: Record<string, string | undefined>,
  ): ({ apiKey: string; baseURL: string } & Partial<Own>) | { missing: string; problem?: string };
  /**
   * Secrets of the provider's own settings that errors must never show (a cloud's credentials); its key and the
   * credentials of its base URL are always redacted.
   */
  secrets?(settings: ProviderSettings & Own): ReadonlyArray<string | undefined>;
  /** Builds the adapter, once per gateway, on the provider's first call (its SDK is imported then). */
  create(settings: ResolvedProviderSettings<Own>): Promise<Provider>;
  /**
   * Runs the request conversion alone, with its warnings, without sending anything, and says what the converted
   * request asks for: the simulator calls it to stand in faithfully for this provider. Optional for providers of
   * your own (the simulator then answers the request as it is).
   */
  convertRequest?(call: ProviderCall, streaming: boolean): Promise<RequestShape>;
}

/**
 * What a provider's request asks of the answer once converted, in neutral terms: a simulator standing in for the
 * provider shapes its answer by this, so it gives the choices and finish reasons the provider would.
 */
export interface RequestShape {
  /** Choices asked for (1 where the provider has no `n`). */
  choices: number;
  /** The output-token limit sent, if any. */
  maxTokens: number | undefined;
  /** Stop sequences sent. */
  stop: string[];
  /** Alternatives per token when token logprobs are asked for; `false` when they are not (or cannot be). */
  logprobs: number | false;
  /** How the provider's answers carry the model's reasoning (default `{ kind: 'text' }`). */
  reasoning?: ReasoningForm;
}

/**
 * How a provider's answer carries the model's reasoning, as its adapter gives it: as text (`text`); not at all, only
 * counted in usage (`hidden`: OpenAI's chat API); as text and a detail of `format` that signs it, which the next
 * turn must send back (`signed-text`: Claude's thinking blocks, whose signature ends the block when streamed); as
 * text and an opaque signature of `format` (`signature`: Gemini's thought signatures).
 */
export type ReasoningForm =
  | { kind: 'text' }
  | { kind: 'hidden' }
  | { kind: 'signed-text'; format: string }
  | { kind: 'signature'; format: string };

/** The shape of an OpenAI-style body: `n`, `max_completion_tokens` / `max_tokens`, `stop`, `logprobs`. */
export function shapeOfOpenAIBody(body: ChatCompletionCreateParamsBase): RequestShape {
  const stop = body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
  return {
    choices: body.n ?? 1,
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    stop,
    logprobs: body.logprobs ? (body.top_logprobs ?? 0) : false,
  };
}

/** What a provider can do, for the decisions the pipeline makes before calling it. */
export interface ProviderCapabilities {
  /**
   * Whether the provider constrains the answer to `response_format` itself for this model (else the schema goes in
   * the prompt). The catalog's `supports` says whether the model can; this says whether the provider enforces it.
   */
  nativeOutput(model: ModelEntry, kind: 'json_schema' | 'json_object'): boolean;
  /**
   * The provider sends a native JSON schema in OpenAI's strict form where `planStrictSchema` allows it, where an
   * optional property the model leaves out comes back as `null`.
   */
  strictForm?: boolean;
  /**
   * A last assistant message is a prefill the model continues (not a finished turn): a broken stream's partial
   * answer is sent that way to go on (see `stream-failover.ts`).
   */
  continuesPrefill?: boolean;
  /** The provider has an embeddings API, which its adapter's `embed` calls. */
  embeddings?: boolean;
  /** The media APIs its adapter's `media` has. */
  media?: MediaCapabilities;
  /**
   * The provider takes OpenAI's custom (free-form) tools and their calls. Without, the pipeline sends each custom tool
   * as a function taking one string and turns the calls back into custom calls (`custom-tools.ts`).
   */
  customTools?: boolean;
}

/**
 * The usual `nativeOutput`: native where the model has it (per the catalog's `structured_outputs`, or `json_mode`
 * for `json_object`) and the provider enforces it.
 */
export function nativeOutputWhere(providerEnforces: boolean): ProviderCapabilities['nativeOutput'] {
  return (model, kind) =>
    providerEnforces && (kind === 'json_schema' ? model.supports.structured_outputs : model.supports.json_mode);
}

/** What an adapter is handed: everything already validated, resolved and converted to provider-neutral form. */
export interface ProviderCall {
  /** The OpenAI body without Switchyard fields and without `stream`; `model` is the provider's own model name. */
  body: ChatCompletionCreateParamsBase;
  /** Catalog facts of the model (limits, capabilities, reasoning control), or the provider's `uncatalogued` profile. */
  model: ModelEntry;
  /**
   * `false` for a model the catalog does not list: its limits are the profile's guesses, so the caller's own values
   * (a `max_tokens` above the guessed ceiling) are sent as they are instead of being lowered.
   */
  modelKnown?: boolean;
  /**
   * `auto`: place prompt-cache breakpoints where the provider needs them placed (Anthropic); `false` or absent: only
   * the caller's `cache_control` marks. See docs/caching.md.
   */
  promptCache?: 'auto' | false;
  /** The reasoning setting after validation, converted to both forms; absent when the caller set none. */
  reasoning: ResolvedReasoning | undefined;
  /**
   * How Claude gives its thinking back (the Messages API's `thinking.display`), where the caller chose; another
   * provider has no such choice, and the dialect shows what it gives as asked.
   */
  thinkingDisplay?: ThinkingDisplay | undefined;
  /**
   * What the caller asked the answer to be. Adapters read `body.response_format` (present when it is sent natively);
   * this is for a provider that answers by itself, like the simulator, whatever path the format took.
   */
  output?: OutputSpec | undefined;
  /**
   * The strict-form plans decided for this call, where the provider takes OpenAI's strict form (`strictForm`): the
   * output schema's and each `strict: true` tool's. Adapters send what they say instead of deciding again.
   */
  strict?: StrictDecisions | undefined;
  signal: AbortSignal | undefined;
  /** Report a parameter the adapter had to drop or convert. */
  warn(warning: CompletionWarning): void;
}

/** The strict-form plans of one shaped request: the output schema's (when sent natively) and each strict tool's. */
export interface StrictDecisions {
  output: StrictPlan | undefined;
  tools: ReadonlyMap<string, StrictPlan>;
}

export type { ResolvedReasoning } from '../reasoning.ts';

/** `summarized` thinking text, or `omitted`: the blocks with their signatures only. */
export type ThinkingDisplay = 'summarized' | 'omitted';

/** A chat completion as the adapter returns it; the gateway adds the `switchyard` extension. */
export type ProviderCompletion = Omit<CompletionResponse, 'switchyard'>;

/** One of several keys (or accounts, regions, Azure resources) of a provider. */
export interface ProviderKey {
  apiKey: string;
  /** Share of the calls this key gets first (default 1). */
  weight?: number | undefined;
  /** Names the key in attempt chains and logs (default `<provider>#<n>`); never the key itself. */
  label?: string | undefined;
  /** This key's endpoint, when it differs (another region or Azure resource). */
  baseURL?: string | undefined;
}

/**
 * Connection settings every provider takes, from gateway options or the environment. A provider with settings of its
 * own declares them in its folder (`AzureSettings`, `BedrockSettings`, `VertexSettings`) and takes
 * `ProviderSettings & Own`.
 */
export interface ProviderSettings {
  apiKey?: string | undefined;
  /**
   * Several keys: each call tries them in weighted random order; a 429, 401 or 403 moves to the next key before the
   * next provider, and a key that keeps failing is rested for a while (see docs/providers.md). `apiKey` is ignored.
   */
  keys?: ProviderKey[] | undefined;
  baseURL?: string | undefined;
  /** Extra headers sent with every request (OpenRouter's HTTP-Referer, X-Title, …). */
  headers?: Record<string, string> | undefined;
  /** Per-attempt timeout in milliseconds. */
  timeoutMs?: number | undefined;
  /** Streams from this provider: time to the first content (overrides the gateway's `firstTokenTimeoutMs`). */
  firstTokenTimeoutMs?: number | undefined;
  /** Streams from this provider: longest wait for the next chunk (overrides the gateway's `streamIdleTimeoutMs`). */
  streamIdleTimeoutMs?: number | undefined;
  /**
   * A fetch implementation every request of this provider goes through (proxies, instrumentation, tests), whichever
   * the transport.
   */
  fetch?: typeof fetch | undefined;
  /**
   * How the provider is reached: `wire` (the default for OpenAI-compatible providers, Anthropic and Gemini) speaks
   * its HTTP API directly on the gateway's connection pool; `sdk` goes through the official SDK. Default: the
   * gateway's `transport`, else the `SWITCHYARD_TRANSPORT` environment variable, else `wire`. Providers whose
   * authentication is their SDK's (Azure with Entra ID, Bedrock, Vertex) use it either way.
   */
  transport?: ProviderTransport | undefined;
}

export type ProviderTransport = 'wire' | 'sdk';

/** Settings after defaults and environment were applied, with the provider's own (`Own`) beside the shared ones. */
export type ResolvedProviderSettings<Own extends object = object> = ProviderSettings &
  Own & {
    apiKey: string;
    baseURL: string;
    timeoutMs: number;
    /** What errors must never show: the shared `secretsOf` and the definition's own `secrets`. */
    secrets: readonly string[];
    transport: ProviderTransport;
    /** Sends one request of the wire transport: on the gateway's pooled dispatcher, or through `fetch` when set. */
    send: HttpSender;
  };

/**
 * The client options the openai and Anthropic SDKs share. Their own retries are off: retries are the gateway's,
 * one policy for every provider, with fallback between them. (A timeout also keeps the Anthropic SDK from refusing
 * non-streaming calls with a large max_tokens.)
 */
export function sdkClientOptions(settings: ResolvedProviderSettings) {
  return {
    apiKey: settings.apiKey,
    timeout: settings.timeoutMs,
    maxRetries: 0,
    ...(settings.headers ? { defaultHeaders: settings.headers } : {}),
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
  };
}

/**
 * Request and response types: the `openai` package's chat-completion types, extended with Switchyard's fields.
 * Code written against openai-node keeps compiling; the extensions are optional and namespaced where they are ours.
 */
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ReasoningEffortLevel } from './reasoning.ts';

export type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';

/** Provider-neutral reasoning setting: exactly one of `budget` (tokens) or `effort`. */
export type ReasoningSetting = { budget: number; effort?: never } | { effort: ReasoningEffortLevel; budget?: never };

/**
 * What moves a call to its next candidate besides failures, where the caller asks (`fallback_on`): `content_filter`,
 * an answer the provider's filter stopped (`finish_reason: "content_filter"`) or its content-policy error;
 * `refusal`, an answer in which the model refused (`message.refusal`).
 */
export type FallbackReason = 'content_filter' | 'refusal';

/**
 * Hedged requests: when the first candidate has produced nothing after `afterMs`, the next one is sent too and the
 * first to produce content wins (the other is aborted). `percentile`: after that percentile of the first candidate's
 * latest durations here (to its first content), `afterMs` (if given) until it has ten. `false`: off for one call.
 */
export type HedgeSetting = { afterMs: number } | { percentile: number; afterMs?: number } | false;

export type { ReasoningEffortLevel } from './reasoning.ts';

/**
 * A prompt-caching breakpoint on a message, a content part or a tool, as LiteLLM and OpenRouter take it: the prompt
 * up to here may be cached. Anthropic gets it as its `cache_control`; see docs/caching.md for the others.
 */
export interface CacheControl {
  type: 'ephemeral';
  /** How long the cache entry lives: `5m` (default) or `1h` (cache writes then cost 2× input instead of 1.25×). */
  ttl?: '5m' | '1h';
}

type Cacheable<T> = T & { cache_control?: CacheControl };
type CacheableContent<C> = C extends Array<infer Part> ? Array<Cacheable<Part>> : C;

/** An OpenAI message whose content parts, and itself, may carry a `cache_control` breakpoint. */
export type CompletionMessageParam = ChatCompletionMessageParam extends infer Message
  ? Message extends unknown
    ? Cacheable<{ [Key in keyof Message]: Key extends 'content' ? CacheableContent<Message[Key]> : Message[Key] }>
    : never
  : never;

/** An OpenAI tool that may carry a `cache_control` breakpoint. */
export type CompletionTool = Cacheable<ChatCompletionTool>;

/** Fields Switchyard adds to an OpenAI chat-completion request. */
/**
 * A web search for the model to run: OpenAI's `web_search_options`, and Switchyard's own fields beside them for the
 * providers whose search takes them. Each provider's own search is used (Anthropic's web search tool, Gemini's Google
 * Search grounding, OpenAI's search models); where a model has none, it is dropped with a warning.
 */
export type WebSearchOptions = ChatCompletionCreateParams.WebSearchOptions & {
  /** Only results from these domains (Anthropic). */
  allowed_domains?: string[];
  /** Never results from these domains (Anthropic, Gemini). */
  blocked_domains?: string[];
  /** At most this many searches in the call (Anthropic). */
  max_uses?: number;
};

interface SwitchyardRequestFields {
  web_search_options?: WebSearchOptions;
  /**
   * What the answer may hold: OpenAI's `text` and `audio`, and `image` for models that answer with images in chat
   * (Gemini's image models), returned in `message.images`. See docs/media.md.
   */
  modalities?: Array<'text' | 'audio' | 'image'> | null;
  /** Optional only for deployment calls; a direct model call needs messages. */
  messages?: CompletionMessageParam[];
  tools?: CompletionTool[];
  /**
   * `auto` places Anthropic cache breakpoints itself (tools, system, the latest turn); `false` sends only yours.
   * Default: the gateway's `promptCache` (false). See docs/caching.md.
   */
  prompt_cache?: 'auto' | false;
  /** Gemini: the name of a context cache made with the Gemini API (`cachedContents/…`), sent as `cachedContent`. */
  cached_content?: string;
  /** `agent_id`, `trace_id`, `workflow_name` are recognised; any other string keys are kept on the call record. */
  metadata?: Record<string, string> | null;
  /** Fills `{{name}}` variables in message text (dotted paths allowed). */
  input?: unknown;
  reasoning?: ReasoningSetting;
  /**
   * Models to try, in order, after every provider of `model` failed with a retryable error, refused a prompt too long
   * for it, or (with `fallback_on`) stopped on its content filter.
   */
  fallbacks?: string[];
  /** What else moves the call to the next candidate (default none): `content_filter`, `refusal`. */
  fallback_on?: FallbackReason[];
  /** How a model's offerings are ordered: `order` (the catalog's, default), `cost` or `latency`. See reliability.md. */
  routing?: 'order' | 'cost' | 'latency';
  /** Send the next candidate too when the first is slow (default: the gateway's, else off). See model-parameter.md. */
  hedge?: HedgeSetting;
  /** A stream broken after content goes on at the next candidate, spliced in (default: the gateway's, else on). */
  stream_failover?: boolean;
  /**
   * The response cache for this call: `auto` only for a deterministic request (`temperature: 0` or a `seed`),
   * `always`, or `never`. Default: the gateway's (`never` unless it was created with `cache`). See docs/caching.md.
   */
  cache?: 'auto' | 'always' | 'never';
  /** A model asked for the answer when `model` twice produced JSON that does not match `response_format`. */
  structured_output_fallback?: string;
  /**
   * Tool-call arguments are repaired and validated against each tool's `parameters`, with one retry on a mismatch;
   * then `"warn"` (default) returns the answer with a warning, `"error"` throws `ToolArgumentsError`. `"off"`: no
   * check.
   */
  tool_call_validation?: 'warn' | 'error' | 'off';
  /**
   * Personal data and secrets in the messages: `mask` (typed placeholders before any provider), `block` (a 400) or
   * `off`. The strictest of the request's, the deployment's, the key's and the gateway's applies. See docs/teams.md.
   */
  sensitive_data?: 'off' | 'mask' | 'block';
}

type OpenAIRequest = Omit<
  ChatCompletionCreateParamsBase,
  'messages' | 'metadata' | 'modalities' | 'stream' | 'tools' | 'web_search_options'
>;

export type CompletionRequestBase = OpenAIRequest & SwitchyardRequestFields;
export type CompletionRequestNonStreaming = CompletionRequestBase & { stream?: false | null };
export type CompletionRequestStreaming = CompletionRequestBase & { stream: true };
export type CompletionRequest = CompletionRequestNonStreaming | CompletionRequestStreaming;

/** Something that could not be honoured as asked: dropped or converted, never silently. */
export interface CompletionWarning {
  /** `unsupported_parameter`, `converted_parameter`, `reasoning_not_disabled`, … */
  code: string;
  param?: string;
  message: string;
}

/** One try at one provider: what the attempt chain in errors, responses and records is made of. */
export interface Attempt {
  provider: string;
  /** The model name sent to the provider. */
  model: string;
  /** Which of the provider's several keys (its label, never the key), when it has several. */
  key?: string;
  /** HTTP status, when the provider answered. */
  status?: number;
  /**
   * `ok`, or why the attempt failed: `rate_limited`, `server_error`, `timeout`, `connection_error`,
   * `missing_credentials`, `hedge_lost` (aborted: a hedged request to another candidate produced content first),
   * `stream_interrupted` (a stream broken after content, continued at the next candidate), …
   */
  outcome: string;
  message?: string;
  duration_ms: number;
  /** What this attempt's model or provider could not take as asked (dropped or converted parameters). */
  warnings?: CompletionWarning[];
}

/** What a call cost, by what the tokens were for, in USD. The parts add up to `cost_usd`. */
export interface CostBreakdown {
  /** Input tokens neither read from nor written to a cache. */
  input: number;
  cache_read: number;
  cache_write: number;
  /** Output tokens the caller sees (the answer, tool calls). */
  output: number;
  /** Reasoning tokens, at the output price: counted once, here. */
  reasoning: number;
}

/** Extension object on every response and stream chunk Switchyard returns. */
export interface SwitchyardResponseInfo {
  /** Catalog id the request resolved to (an alias resolves to its pinned id). */
  model: string;
  provider: string;
  /** The model name the provider was sent. */
  provider_model: string;
  /**
   * `false` when the model is not in the catalog (`<provider>/<any id>`): its parameters went through ungated and
   * its price is not known.
   */
  model_known: boolean;
  /** Agent the call is attributed to (deployment, then `metadata.agent_id`, then the model prefix). */
  agent_id?: string;
  /** The deployment the call ran, for `switchyard/deployment/<id>` calls. */
  deployment_id?: string;
  /** Id of the call's record (UUIDv7), to find it in `gateway.calls` or a sink. */
  call_id: string;
  /** What the call cost in USD, every attempt that produced tokens summed; for a stream, set when it ends. */
  cost_usd: number | null;
  /**
   * The same cost by part: uncached input, cache reads, cache writes, visible output and reasoning (each counted
   * once). `null` with `cost_usd`.
   */
  cost: CostBreakdown | null;
  attempts: Attempt[];
  warnings: CompletionWarning[];
  /** `hit`: answered from the response cache (no attempt, cost 0); `miss`: looked up, not found, stored once done. */
  cache?: 'hit' | 'miss';
  /** The sensitive-data mode applied and the counts of what was found, by kind (never a value). Absent: `off`. */
  sensitive_data?: { mode: 'off' | 'mask' | 'block'; found: Partial<Record<string, number>> };
  /** Media calls only (docs/media.md): the modality produced and the units billed. */
  media?: MediaUnits;
}

/** What a media call (images, speech, transcription) produced and was billed in. */
export interface MediaUnits {
  kind: 'image' | 'speech' | 'transcription';
  /** `image`, `audio` (speech) or `text` (a transcription). */
  modality: 'text' | 'image' | 'audio';
  /** `images`, `input_text_tokens`, `output_tokens`, `characters`, `seconds`, … as the provider reported them. */
  units: Record<string, number>;
}

/**
 * Provider reasoning state that must travel back with the assistant message in a tool loop: Anthropic thinking
 * blocks with their signatures, Gemini thought signatures. Opaque to the caller: keep the assistant message as
 * returned (including `reasoning_details`) when sending it back, and the adapter restores it for its provider.
 */
export interface ReasoningDetail {
  /** `reasoning.text` (readable thinking with its signature) or `reasoning.encrypted` (redacted/opaque data). */
  type: 'reasoning.text' | 'reasoning.encrypted';
  /** The provider whose format this is (`anthropic`, `google`); other providers ignore the entry. */
  format: string;
  text?: string;
  signature?: string;
  data?: string;
  /** Gemini: the tool call whose part carried the signature. */
  tool_call_id?: string;
}

/**
 * An image in an answer, as OpenRouter, LiteLLM and Vercel's gateway give them: a `data:` URL (`image/png;base64,…`).
 */
export interface CompletionImage {
  type: 'image_url';
  image_url: { url: string };
}

export type CompletionMessage = ChatCompletionMessage & {
  /** Images the model answered with, under `modalities: ["text", "image"]`. */
  images?: CompletionImage[];
  /** Reasoning text, when the provider exposes it (never for OpenAI models, whose API hides it). */
  reasoning_content?: string | null;
  reasoning_details?: ReasoningDetail[];
  /**
   * With `response_format` json_schema/json_object: the validated answer, parsed (by the zod schema, if one was given).
   */
  parsed?: unknown;
};

export type CompletionChoice = Omit<ChatCompletion.Choice, 'message'> & { message: CompletionMessage };

export type CompletionResponse = Omit<ChatCompletion, 'choices'> & {
  choices: CompletionChoice[];
  switchyard: SwitchyardResponseInfo;
};

/** A response to a request whose `response_format` came from `zodResponseFormat`: `message.parsed` is typed. */
export type ParsedCompletionResponse<Parsed> = Omit<CompletionResponse, 'choices'> & {
  choices: Array<Omit<CompletionChoice, 'message'> & { message: CompletionMessage & { parsed: Parsed | null } }>;
};

/**
 * A streamed tool call. A custom tool's call (`type: "custom"`) carries its `input` in pieces under `custom`, as OpenAI
 * streams one; the gateway lets out the custom calls of a provider without custom tools whole, in one delta.
 */
export type ToolCallDelta = Omit<ChatCompletionChunk.Choice.Delta.ToolCall, 'type'> & {
  type?: 'function' | 'custom';
  custom?: { name?: string; input?: string };
};

export type CompletionChunkDelta = Omit<ChatCompletionChunk.Choice.Delta, 'tool_calls'> & {
  tool_calls?: ToolCallDelta[];
  reasoning_content?: string | null;
  /** Whole images, each in the one chunk that carries it (OpenRouter's streaming form). */
  images?: CompletionImage[];
  /** Complete entries, sent once each is known (Anthropic: when a thinking block's signature arrives). */
  reasoning_details?: ReasoningDetail[];
};
type CompletionChunkChoice = Omit<ChatCompletionChunk.Choice, 'delta'> & { delta: CompletionChunkDelta };
export type CompletionChunk = Omit<ChatCompletionChunk, 'choices'> & {
  choices: CompletionChunkChoice[];
};

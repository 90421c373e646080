import type Anthropic from '@anthropic-ai/sdk';
import type { AutoParseableResponseFormat } from 'openai/lib/parser';
import type {
  ResponseCreateParams,
  ResponseCreateParamsNonStreaming,
  ResponseCreateParamsStreaming,
} from 'openai/resources/responses/responses';
import type { Annotations } from './annotations/annotations.ts';
import type { Catalog, ListModelsOptions, ModelList } from './catalog/catalog.ts';
import type { CatalogRefreshStatus } from './catalog/catalog-refresh.ts';
import type { MediaModelInfo, Modality } from './catalog/media-schema.ts';
import type { CompletionStream } from './completion/completion-stream.ts';
import type { CompletionOptions } from './completion/resolve-request.ts';
import type { Deployment } from './deployments/deployment.ts';
import type { SwitchyardMessage } from './dialects/messages/from-chat.ts';
import type { MessageEventStream } from './dialects/messages/stream-events.ts';
import type { SwitchyardResponse } from './dialects/responses/from-chat.ts';
import type { ResponseEventStream } from './dialects/responses/stream-events.ts';
import type { EmbeddingRequest, EmbeddingResponse } from './embeddings/embedding-types.ts';
import type { Experiments } from './experiments/experiments-api.ts';
import type {
  ImageEditRequest,
  ImageRequest,
  ImageResponse,
  SpeechRequest,
  SpeechResponse,
  TranscriptionRequest,
  TranscriptionResponse,
} from './media/media-types.ts';
import type { CallStore } from './records/call-store.ts';
import type { RecordQueueStats } from './records/record-queue.ts';
import type {
  CompletionRequest,
  CompletionRequestNonStreaming,
  CompletionRequestStreaming,
  CompletionResponse,
  ParsedCompletionResponse,
} from './types.ts';

/** What `createGateway` returns: the calls in each dialect, the catalog, the records and their queries. */
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
  /** OpenAI's `images.generate`: an `ImagesResponse` with the `switchyard` facts. See docs/media.md. */
  createImage(request: ImageRequest, options?: CompletionOptions): Promise<ImageResponse>;
  /** OpenAI's `images.edit`, the images (and mask) as bytes. See docs/media.md. */
  editImage(request: ImageEditRequest, options?: CompletionOptions): Promise<ImageResponse>;
  /** OpenAI's `audio.speech.create`: the audio's bytes and media type. See docs/media.md. */
  createSpeech(request: SpeechRequest, options?: CompletionOptions): Promise<SpeechResponse>;
  /** OpenAI's `audio.transcriptions.create`: `{ text, … }` in the requested format. See docs/media.md. */
  createTranscription(request: TranscriptionRequest, options?: CompletionOptions): Promise<TranscriptionResponse>;
  /** The catalog in the OpenAI `/v1/models` shape. */
  listModels(options?: ListModelsOptions): ModelList;
  /**
   * The image, speech and transcription models, with their modalities and price units (loaded on the first call, so
   * the core's bundle does not carry them). See docs/media.md.
   */
  listMediaModels(filter?: { output_modality?: Modality | undefined }): Promise<MediaModelInfo[]>;
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

/**
 * Switchyard: one OpenAI-shaped API for every language model.
 *
 * The main entry holds what a caller needs: the gateway and its calls, the request and response types, the errors,
 * the catalog, deployments and embeddings. The rest is on subpaths (docs/api.md): `switchyard-llm/stores` (store
 * and sink classes), `/records` (the shapes of records, annotations and experiments, costs), `/providers` (writing
 * a provider), `/testing` (the simulator, cassettes) and `/server` (`switchyard serve` as a library). Names are
 * imported from the files that define them, not from the folders' indexes, which load every store of a folder.
 * @module
 */

export type { CallAccess } from './access/call-access.ts';
export type { Annotations } from './annotations/index.ts';
export type { BudgetOptions, BudgetRule } from './budgets/budget-ledger.ts';
export type { CacheMode, ResponseCacheOptions } from './cache/response-cache.ts';
export type { ListModelsOptions, ModelInfo, ModelList, ModelReasoningInfo } from './catalog/catalog.ts';
export { Catalog } from './catalog/catalog.ts';
export type { CatalogRefreshOptions, CatalogRefreshStatus } from './catalog/catalog-refresh.ts';
export {
  type CatalogExtension,
  type CatalogRow,
  type ExtendCatalogOptions,
  extendCatalog,
} from './catalog/extend-catalog.ts';
export type { MediaModelInfo } from './catalog/media-schema.ts';
export type { ModelDeprecation, ModelLifecycle } from './catalog/model-lifecycle.ts';
export { CompletionStream } from './completion/completion-stream.ts';
export { convertLegacyDeploymentReference } from './completion/parse-model.ts';
export type { RetryOptions } from './completion/run-attempts.ts';
export { createCompletion, listModels } from './default-gateway.ts';
export * from './deployments/caller-api.ts';
export { listEmbeddingModels } from './embeddings/embedding-catalog.ts';
export type { EmbeddingModel, EmbeddingRequest, EmbeddingResponse } from './embeddings/embedding-types.ts';
export {
  AuthenticationError,
  BudgetExceededError,
  CatalogError,
  InternalError,
  InvalidRequestError,
  LimitExceededError,
  MissingCredentialsError,
  ModelNotFoundError,
  PermissionDeniedError,
  ProviderError,
  RateLimitError,
  StorageUnavailableError,
  StreamInterruptedError,
  StructuredOutputError,
  SwitchyardError,
  ToolArgumentsError,
  UnsupportedParameterError,
} from './errors.ts';
export type { Experiments } from './experiments/index.ts';
export type { CompletionOptions, Gateway, GatewayOptions } from './gateway.ts';
export { createGateway } from './gateway.ts';
export {
  type FindingCounts,
  findSensitive,
  type GuardedRequest,
  type Guardrail,
  type GuardrailContext,
  GuardrailRefusedError,
  Masker,
  SENSITIVE_KINDS,
  SensitiveDataError,
  type SensitiveDataMode,
  type SensitiveKind,
} from './guardrails/index.ts';
// The media requests are the gateway's parameters (`Parameters<Gateway['createImage']>[0]`): the entry's names are few.
export type { ImageResponse, MediaFile, SpeechResponse, TranscriptionResponse } from './media/media-types.ts';
export type { AzureSettings } from './providers/azure/definition.ts';
export type { BedrockSettings } from './providers/bedrock/definition.ts';
export type { ProvidersSettings } from './providers/registry.ts';
export type { VertexSettings } from './providers/vertex/definition.ts';
export { budgetToEffort, effortToBudget } from './reasoning.ts';
export type { CallRecord } from './records/call-record.ts';
export type { CallStore } from './records/call-store.ts';
export { uuidv7 } from './records/uuidv7.ts';
export { zodResponseFormat } from './structured-output/response-format.ts';
export { toStrictJsonSchema } from './structured-output/strict-json-schema.ts';
export { renderTemplate } from './templates.ts';
export type {
  Attempt,
  CacheControl,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  CompletionChoice,
  CompletionChunk,
  CompletionMessage,
  CompletionMessageParam,
  CompletionRequest,
  CompletionRequestBase,
  CompletionRequestNonStreaming,
  CompletionRequestStreaming,
  CompletionResponse,
  CompletionTool,
  CompletionWarning,
  HedgeSetting,
  ParsedCompletionResponse,
  ReasoningDetail,
  ReasoningEffortLevel,
  ReasoningSetting,
  SwitchyardResponseInfo,
  ToolCallDelta,
  WebSearchOptions,
} from './types.ts';

/**
 * Switchyard: one OpenAI-shaped API for every language model.
 * @module
 */

export type { CallAccess } from './access/call-access.ts';
export type {
  AddAnnotationsOptions,
  Annotation,
  AnnotationInput,
  AnnotationMetric,
  AnnotationPage,
  AnnotationQuery,
  AnnotationStore,
  Annotations,
  AnnotationTarget,
  ListAnnotationsOptions,
  NormalizedAnnotationQuery,
  StoredAnnotation,
} from './annotations/index.ts';
export { MemoryAnnotationStore, PostgresAnnotationStore, SqliteAnnotationStore } from './annotations/index.ts';
export type { BudgetOptions, BudgetRule } from './budgets/budget-ledger.ts';
export { type MemoryCacheOptions, MemoryCacheStore, type ResponseCacheStore } from './cache/cache-store.ts';
export { RedisCacheStore } from './cache/redis-cache-store.ts';
export type { CacheMode, ResponseCacheOptions } from './cache/response-cache.ts';
export { SqliteCacheStore } from './cache/sqlite-cache-store.ts';
export type { ListModelsOptions, ModelInfo, ModelList, ModelReasoningInfo } from './catalog/catalog.ts';
export { Catalog } from './catalog/catalog.ts';
export type { CatalogRefreshOptions, CatalogRefreshStatus } from './catalog/catalog-refresh.ts';
export type {
  CatalogData,
  CatalogSchemas,
  ModelEntry,
  ModelSupports,
  ProviderOffering,
  ReasoningFacts,
} from './catalog/catalog-schema.ts';
export {
  type CatalogExtension,
  type CatalogRow,
  type ExtendCatalogOptions,
  extendCatalog,
} from './catalog/extend-catalog.ts';
export type { ModelDeprecation, ModelLifecycle } from './catalog/model-lifecycle.ts';
export { type ModelProfile, OPENAI_STYLE_PROFILE, SUPPORTS_EVERYTHING } from './catalog/model-profile.ts';
export { CompletionStream } from './completion/completion-stream.ts';
export { convertLegacyDeploymentReference } from './completion/parse-model.ts';
export type { RetryOptions } from './completion/run-attempts.ts';
export { createCompletion, listModels } from './default-gateway.ts';
export type { JsonSchemaObject } from './deployments/deployment.ts';
export type {
  CreateDeploymentStoreOptions,
  Deployment,
  DeploymentEnvironment,
  DeploymentIssue,
  DeploymentStore,
  DeploymentVersion,
  RemoteDeploymentStoreOptions,
  ResolvedDeployment,
} from './deployments/index.ts';
export {
  createDeploymentStore,
  DEPLOYMENT_ENVIRONMENTS,
  DeploymentConflictError,
  DeploymentNotFoundError,
  DeploymentStoreError,
  DeploymentValidationError,
  FileDeploymentStore,
  formatDeploymentId,
  MemoryDeploymentStore,
  parseDeploymentId,
  RemoteDeploymentStore,
  resolveDeployment,
  validateDeployment,
} from './deployments/index.ts';
export type { LookupOptions } from './deployments/store.ts';
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
export type { ExperimentListQuery } from './experiments/experiment-store.ts';
export type {
  CallSample,
  CellStatus,
  CreateExperimentInput,
  Experiment,
  ExperimentCaller,
  ExperimentCell,
  ExperimentHeader,
  ExperimentInput,
  ExperimentInputInput,
  ExperimentList,
  ExperimentStore,
  Experiments,
  ExperimentVersion,
  ExperimentVersionInput,
  FieldComparison,
  GetExperimentOptions,
  RunExperimentOptions,
  VersionSummary,
} from './experiments/index.ts';
export { MemoryExperimentStore, PostgresExperimentStore, SqliteExperimentStore } from './experiments/index.ts';
export type { CompletionOptions, Gateway, GatewayOptions } from './gateway.ts';
export { createGateway } from './gateway.ts';
export type { AzureSettings } from './providers/azure/definition.ts';
export type { BedrockSettings } from './providers/bedrock/definition.ts';
export { keyAndEndpoint } from './providers/credentials.ts';
export { type CallPhase, type ErrorClassifier, type ErrorMapper, errorMapper } from './providers/error-mapper.ts';
export type {
  Provider,
  ProviderCall,
  ProviderCapabilities,
  ProviderCompletion,
  ProviderDefinition,
  ProviderSettings,
  ProviderTransport,
  RequestShape,
  ResolvedProviderSettings,
  ResolvedReasoning,
} from './providers/provider.ts';
export { nativeOutputWhere } from './providers/provider.ts';
export {
  abortedByCaller,
  type ErrorScope,
  fromStatus,
  incompleteStream,
  invalidResponse,
  refusedBySdk,
  streamError,
  timedOut,
  unreachable,
} from './providers/provider-errors.ts';
export type { ProvidersSettings } from './providers/registry.ts';
export type { VertexSettings } from './providers/vertex/definition.ts';
export { budgetToEffort, effortToBudget } from './reasoning.ts';
export type { Dialect } from './records/call-record.ts';
export type { BilledUsage, UsageLike } from './records/compute-cost.ts';
export type {
  AgentSummary,
  CallPage,
  CallQuery,
  CallQueryOptions,
  CallQueryResult,
  CallQueryScope,
  CallRecord,
  CallStore,
  CallTextPage,
  CallTiming,
  CostBreakdown,
  DailyCostQuery,
  DailyCostRow,
  ListCallsQuery,
  LongContextPricing,
  MemorySinkOptions,
  OpenTelemetrySinkOptions,
  RecordError,
  RecordJournalOptions,
  RecordOutput,
  RecordQueueOptions,
  RecordQueueStats,
  RecordSink,
  RecordUsage,
  TokenPricing,
  TraceSummary,
  WorkflowSummary,
  WorkflowTimeline,
} from './records/index.ts';
export {
  buildCallRecord,
  CallbackSink,
  computeCost,
  computeTotalCost,
  costBreakdown,
  JsonlFileSink,
  MAX_PAGE_BYTES,
  MemorySink,
  OpenTelemetrySink,
  PostgresSink,
  RecordJournal,
  RecordQueue,
  RecordsRefusedError,
  SqliteSink,
  totalCostBreakdown,
  uuidv7,
} from './records/index.ts';
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

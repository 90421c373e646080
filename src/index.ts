/**
 * Switchyard: one OpenAI-shaped API for every language model.
 * @module
 */
export { createGateway } from './gateway.ts';
export type { Gateway, GatewayOptions, CompletionOptions } from './gateway.ts';
export { createCompletion, listModels } from './default-gateway.ts';
export { CompletionStream } from './completion/completion-stream.ts';
export { Catalog } from './catalog/catalog.ts';
export type { ModelInfo, ModelList, ListModelsOptions, ModelReasoningInfo } from './catalog/catalog.ts';
export type { CatalogData, ModelEntry, ProviderOffering, ModelSupports, ReasoningFacts } from './catalog/catalog-schema.ts';
export { effortToBudget, budgetToEffort } from './reasoning.ts';
export { convertLegacyDeploymentReference } from './completion/parse-model.ts';
export type { RetryOptions } from './completion/run-attempts.ts';
export {
  MemorySink,
  JsonlFileSink,
  SqliteSink,
  OpenTelemetrySink,
  CallbackSink,
  RecordQueue,
  computeCost,
  computeTotalCost,
  uuidv7,
  buildCallRecord,
  RecordsRefusedError,
} from './records/index.ts';
export type {
  CallRecord,
  CallStore,
  CallPage,
  ListCallsQuery,
  WorkflowSummary,
  WorkflowTimeline,
  TraceSummary,
  CallTiming,
  DailyCostQuery,
  DailyCostRow,
  AgentSummary,
  RecordSink,
  RecordQueueOptions,
  RecordQueueStats,
  RecordUsage,
  RecordOutput,
  RecordError,
  TokenPricing,
  MemorySinkOptions,
  OpenTelemetrySinkOptions,
} from './records/index.ts';
export type {
  Provider,
  ProviderCall,
  ProviderCapabilities,
  ProviderCompletion,
  ProviderDefinition,
  ProviderSettings,
  RequestShape,
  ResolvedProviderSettings,
  ResolvedReasoning,
} from './providers/provider.ts';
export { nativeOutputWhere } from './providers/provider.ts';
export { renderTemplate } from './templates.ts';
export {
  DEPLOYMENT_ENVIRONMENTS,
  formatDeploymentId,
  parseDeploymentId,
  validateDeployment,
  DeploymentConflictError,
  DeploymentNotFoundError,
  DeploymentStoreError,
  DeploymentValidationError,
  MemoryDeploymentStore,
  FileDeploymentStore,
  RemoteDeploymentStore,
  createDeploymentStore,
  resolveDeployment,
} from './deployments/index.ts';
export type {
  Deployment,
  DeploymentEnvironment,
  DeploymentVersion,
  DeploymentStore,
  DeploymentIssue,
  RemoteDeploymentStoreOptions,
  CreateDeploymentStoreOptions,
  ResolvedDeployment,
} from './deployments/index.ts';
export { zodResponseFormat } from './structured-output/response-format.ts';
export { toStrictJsonSchema } from './structured-output/strict-json-schema.ts';
export {
  SwitchyardError,
  InvalidRequestError,
  ModelNotFoundError,
  UnsupportedParameterError,
  MissingCredentialsError,
  ProviderError,
  AuthenticationError,
  RateLimitError,
  StreamInterruptedError,
  StructuredOutputError,
} from './errors.ts';
export type {
  CompletionRequest,
  CompletionRequestStreaming,
  CompletionRequestNonStreaming,
  CompletionResponse,
  CompletionChunk,
  CompletionMessage,
  CompletionWarning,
  ParsedCompletionResponse,
  ReasoningDetail,
  Attempt,
  ReasoningSetting,
  ReasoningEffortLevel,
  SwitchyardResponseInfo,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from './types.ts';

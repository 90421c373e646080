/**
 * `switchyard-llm/providers`: what it takes to write a provider of your own (docs/providers.md): its definition,
 * the shared errors and the one error mapper, the model profiles, and the catalog's data, where its offerings go.
 *
 * ```ts
 * import type { ProviderDefinition } from 'switchyard-llm/providers';
 * ```
 * @module
 */

export type {
  CatalogData,
  CatalogSchemas,
  ModelEntry,
  ModelSupports,
  ProviderOffering,
  ReasoningFacts,
} from '../catalog/catalog-schema.ts';
export { type ModelProfile, OPENAI_STYLE_PROFILE, SUPPORTS_EVERYTHING } from '../catalog/model-profile.ts';
export { keyAndEndpoint } from '../providers/credentials.ts';
export { type CallPhase, type ErrorClassifier, type ErrorMapper, errorMapper } from '../providers/error-mapper.ts';
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
} from '../providers/provider.ts';
export { nativeOutputWhere } from '../providers/provider.ts';
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
} from '../providers/provider-errors.ts';

import data from '../catalog/embedding-models.json' with { type: 'json' };
import { ModelNotFoundError } from '../errors.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { EmbeddingModel } from './embedding-types.ts';

const MODELS: readonly EmbeddingModel[] = data.models;
const BY_ID = new Map(MODELS.map((model) => [model.id, model]));

/** The embedding models the catalog lists, with their providers and prices (per 1M input tokens). */
export function listEmbeddingModels(): readonly EmbeddingModel[] {
  return MODELS;
}

/** One provider to try for an embedding: the catalog row (or `undefined` for an uncatalogued id) and the offering. */
export interface EmbeddingCandidate {
  model: { id: string };
  entry: EmbeddingModel | undefined;
  offering: { provider: string; model: string; pricing: { input: number } | undefined };
}

/**
 * The providers to try for `model`, in order: a catalog id gives its offerings; `<provider>/<catalog id>` pins one;
 * `<provider>/<any id>` reaches a model the catalog does not list (its price unknown). Anything else is a 404 naming
 * the embedding models there are.
 */
export function embeddingCandidates(
  model: string,
  registry: ProviderRegistry,
  configured: () => readonly string[],
): EmbeddingCandidate[] {
  const entry = BY_ID.get(model);
  if (entry) return entry.providers.map((offering) => ({ model: { id: entry.id }, entry, offering }));
  const slash = model.indexOf('/');
  const provider = slash > 0 ? model.slice(0, slash) : undefined;
  const rest = slash > 0 ? model.slice(slash + 1) : '';
  if (provider && rest && registry.get(provider)) {
    const pinned = BY_ID.get(rest);
    const offering = pinned?.providers.find((candidate) => candidate.provider === provider);
    if (pinned && offering) return [{ model: { id: pinned.id }, entry: pinned, offering }];
    return [{ model: { id: model }, entry: undefined, offering: { provider, model: rest, pricing: undefined } }];
  }
  // Every embedding model is suggested: the list is short, and a chat model's id here is a common mistake.
  throw new ModelNotFoundError(
    model,
    MODELS.map((row) => row.id),
    slash > 0 ? [] : configured().filter((provider) => registry.get(provider)?.capabilities.embeddings),
  );
}

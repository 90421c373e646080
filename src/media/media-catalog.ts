import { listMediaModels, mediaModel } from '../catalog/media-catalog.ts';
import { InvalidRequestError, ModelNotFoundError } from '../errors.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { MediaKind, MediaModel, MediaOffering } from './media-types.ts';

/** One provider to try for a media call: the catalog row (`undefined` for `<provider>/<any id>`) and the offering. */
export interface MediaCandidate {
  model: { id: string };
  entry: MediaModel | undefined;
  offering: MediaOffering;
  /** Set when the candidate is not to be tried (a fallback outside the caller's models). */
  skip?: { outcome: string; message: string } | undefined;
}

/**
 * The providers to try for `model` in a `kind` call, in order: a catalog id gives its offerings; `<provider>/<catalog
 * id>` pins one; `<provider>/<any id>` reaches a model the catalog does not list, called as written, its price
 * unknown. A catalog model of another kind is a 400 naming the API it answers; anything else a 404.
 */
export function mediaCandidates(
  model: string,
  kind: MediaKind,
  registry: ProviderRegistry,
  configured: () => readonly string[],
): MediaCandidate[] {
  const slash = model.indexOf('/');
  // A prefix names a provider only when one has that id: a catalog id may hold a slash of its own
  // (`black-forest-labs/FLUX.1-schnell`).
  const provider = slash > 0 && registry.get(model.slice(0, slash)) ? model.slice(0, slash) : undefined;
  const rest = provider ? model.slice(slash + 1) : '';
  const entry = mediaModel(model) ?? (provider ? mediaModel(rest) : undefined);
  if (entry && entry.kind !== kind) {
    throw new InvalidRequestError(
      `${entry.id} is a ${entry.kind} model; this is the ${kind} API.`,
      'model',
      'model_not_supported',
    );
  }
  if (entry && !provider) return entry.providers.map((offering) => ({ model: { id: entry.id }, entry, offering }));
  if (provider && rest) {
    const offering = entry?.providers.find((candidate) => candidate.provider === provider);
    if (entry && offering) return [{ model: { id: entry.id }, entry, offering }];
    const unlisted: MediaOffering = { provider, model: rest, pricing: null, source: null };
    return [{ model: { id: model }, entry: undefined, offering: unlisted }];
  }
  throw new ModelNotFoundError(
    model,
    listMediaModels()
      .filter((row) => row.kind === kind)
      .map((row) => row.id),
    slash > 0 ? [] : configured(),
  );
}

import type { ModelEntry, ProviderOffering } from '../catalog/catalog-schema.ts';
import { OPENAI_STYLE_PROFILE, uncataloguedModel } from '../catalog/model-profile.ts';
import { InvalidRequestError, ModelNotFoundError } from '../errors.ts';
import type { CompletionWarning } from '../types.ts';
import type { Services } from './services.ts';

/** The model a `model` reference names, and the offerings that may serve it, in order. */
export interface FoundModel {
  model: ModelEntry;
  offerings: ProviderOffering[];
  /** `false` when the catalog does not list the model: its facts are the provider's assumed profile. */
  known: boolean;
}

/**
 * The model of `<model>` or `<provider>/<model>`, in this order:
 * - a catalog id, alias or synonym (with a provider: that provider's offering of it);
 * - with a provider, the model that provider serves under that name (`openrouter/openai/gpt-4o-2024-08-06`);
 * - with a provider, any other id: a catalogued model the catalog does not list at that provider (an Azure
 *   deployment named `gpt-4o`), or a model the catalog does not know (`ollama/llama3.2:3b`), sent as written at a
 *   price nobody knows;
 * - a bare id the catalog does not know is a 404 suggesting close ids and `<provider>/<id>`.
 */
export function findModel(
  services: Services,
  reference: { model: string; provider?: string | undefined },
  warn: (warning: CompletionWarning) => void,
): FoundModel {
  const { model: id, provider } = reference;
  const entry = services.catalog.find(id);
  if (provider === undefined) {
    if (!entry) throw new ModelNotFoundError(id, services.catalog.suggest(id), services.configuredProviders());
    return { model: entry, offerings: entry.providers, known: true };
  }
  const listed = entry?.providers.find((offering) => offering.provider === provider);
  if (entry && listed) return { model: entry, offerings: [listed], known: true };
  const served = services.catalog.findOffering(provider, id);
  if (served)
    return {
      model: served,
      offerings: served.providers.filter((o) => o.provider === provider && o.model === id),
      known: true,
    };

  const definition = services.registry.get(provider);
  if (!definition) {
    throw new InvalidRequestError(
      `"${provider}/${id}": "${provider}" is a reserved provider name this version cannot call.`,
      'model',
      'provider_not_available',
    );
  }
  if (entry) {
    warn({
      code: 'offering_not_in_catalog',
      param: 'model',
      message:
        `The catalog does not list ${provider} as serving ${entry.id} (its providers: ` +
        `${entry.providers.map((offering) => offering.provider).join(', ')}); "${id}" was sent to ${provider} ` +
        'as written.',
    });
    return { model: entry, offerings: [{ provider, model: id }], known: true };
  }
  const model = uncataloguedModel(id, provider, definition.uncatalogued ?? OPENAI_STYLE_PROFILE);
  return { model, offerings: model.providers, known: false };
}

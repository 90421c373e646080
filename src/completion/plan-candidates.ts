import type { ModelEntry, ProviderOffering } from '../catalog/catalog-schema.ts';
import { InvalidRequestError } from '../errors.ts';
import type { CallPlan } from './call-plan.ts';
import { findModel } from './resolve-request.ts';
import type { Services } from './services.ts';

/** One provider that could serve the call: a catalog model at one of its providers. */
export interface Candidate {
  model: ModelEntry;
  offering: ProviderOffering;
}

/**
 * Stage 2: the providers to try, in order: the model's own (only the pinned one, with `<provider>/<model>`),
 * then every provider of each fallback model.
 */
export function planCandidates(
  services: Services,
  plan: Pick<CallPlan, 'model' | 'pinnedProvider' | 'fallbacks'>,
): Candidate[] {
  const { model, pinnedProvider } = plan;
  const offerings = pinnedProvider
    ? model.providers.filter((offering) => offering.provider === pinnedProvider)
    : model.providers;
  if (offerings.length === 0) {
    throw new InvalidRequestError(
      `${model.id} is not served by ${pinnedProvider}. Its providers: ` +
        `${model.providers.map((offering) => offering.provider).join(', ')}.`,
      'model',
      'provider_not_serving_model',
    );
  }
  const candidates = offerings.map((offering) => ({ model, offering }));
  for (const fallback of plan.fallbacks.map((id) => findModel(services, id))) {
    for (const offering of fallback.providers) candidates.push({ model: fallback, offering });
  }
  return candidates;
}

import type { ModelEntry, ProviderOffering } from '../catalog/catalog-schema.ts';
import { InvalidRequestError } from '../errors.ts';
import type { CompletionWarning } from '../types.ts';
import { type CallAccess, modelAllowed } from './call-access.ts';
import type { CallPlan } from './call-plan.ts';
import { findModel } from './find-model.ts';
import { parseModelReference } from './parse-model.ts';
import type { Services } from './services.ts';

/** One provider that could serve the call: a model at one of its providers. */
export interface Candidate {
  model: ModelEntry;
  offering: ProviderOffering;
  /** `false` for a model the catalog does not list. */
  known: boolean;
  /** Why the caller may not use this candidate (a key limited to other models): recorded as `not_allowed`, skipped. */
  refused?: string;
}

/**
 * Stage 2: the providers to try, in order: the model's offerings (only the named one, with `<provider>/<model>`),
 * then those of each fallback model, which may be written like `model` (`<provider>/<any id>` included).
 */
export function planCandidates(
  services: Services,
  plan: Pick<CallPlan, 'model' | 'modelKnown' | 'offerings' | 'fallbacks' | 'access'>,
  warn: (warning: CompletionWarning) => void,
): Candidate[] {
  const candidates: Candidate[] = plan.offerings.map((offering) => ({
    model: plan.model,
    offering,
    known: plan.modelKnown,
  }));
  for (const fallback of plan.fallbacks) candidates.push(...candidatesOf(services, fallback, warn, plan.access));
  return candidates;
}

/** The candidates of one model reference, as `planCandidates` takes it for a fallback. */
export function candidatesOf(
  services: Services,
  reference: string,
  warn: (warning: CompletionWarning) => void,
  access: CallAccess | undefined,
): Candidate[] {
  const parsed = parseModelReference(reference, services.registry.reservedNames);
  if (parsed.kind !== 'model')
    throw new InvalidRequestError(`"${reference}" is a deployment; a fallback names a model.`, 'fallbacks');
  const { model, offerings, known } = findModel(services, parsed, warn);
  const find = (name: string) => services.catalog.find(name);
  return offerings.map((offering) => {
    const candidate: Candidate = { model, offering, known };
    // The caller's model limits hold for every fallback (per request, deployment or gateway), not just `model`.
    if (!modelAllowed(access, find, model.id, `${offering.provider}/${offering.model}`, reference))
      candidate.refused = `This API key may not use ${model.id}; the fallback was skipped.`;
    return candidate;
  });
}

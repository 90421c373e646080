import type { CallAccess } from '../access/call-access.ts';
import { modelAllowed } from '../access/models.ts';
import type { ModelEntry, ProviderOffering } from '../catalog/catalog-schema.ts';
import { InvalidRequestError } from '../errors.ts';
import type { CompletionWarning } from '../types.ts';
import type { CallPlan } from './call-plan.ts';
import { contextTooLong, type PromptSize, promptSizeOf } from './context-fit.ts';
import { findModel } from './find-model.ts';
import { latencyOf } from './latency-tracker.ts';
import { parseModelReference } from './parse-model.ts';
import { type Routing, routeOfferings } from './route-offerings.ts';
import type { Services } from './services.ts';

/** One provider that could serve the call: a model at one of its providers. */
export interface Candidate {
  model: ModelEntry;
  offering: ProviderOffering;
  /** `false` for a model the catalog does not list. */
  known: boolean;
  /** Why the candidate is not tried, decided when planning: recorded as an attempt with this outcome. */
  skip?: CandidateSkip;
}

/**
 * `not_allowed`: the caller may not use the model (a key limited to other models). `context_too_long`: the prompt
 * cannot fit the model's context window, so the provider would refuse it.
 */
export interface CandidateSkip {
  outcome: 'not_allowed' | 'context_too_long';
  message: string;
}

type Planned = Pick<CallPlan, 'model' | 'modelKnown' | 'offerings' | 'fallbacks' | 'access' | 'body' | 'routing'>;

/**
 * Stage 2: the providers to try, in order: the model's offerings (only the named one, with `<provider>/<model>`),
 * then those of each fallback model, which may be written like `model` (`<provider>/<any id>` included). Each
 * model's offerings are ordered by the call's `routing`; a model whose window the prompt cannot fit is skipped.
 */
export function planCandidates(
  services: Services,
  plan: Planned,
  warn: (warning: CompletionWarning) => void,
): Candidate[] {
  const order: Ordering = { routing: plan.routing, size: promptSizeOf(plan.body) };
  const candidates = routed(services, order, plan.model, plan.offerings, plan.modelKnown);
  for (const fallback of plan.fallbacks) candidates.push(...candidatesOf(services, fallback, warn, plan.access, order));
  return candidates;
}

/** How one call orders and fits its candidates: its routing and its prompt's size. */
interface Ordering {
  routing: Routing;
  size: PromptSize;
}

/** The candidates of one model reference, as `planCandidates` takes it for a fallback. */
export function candidatesOf(
  services: Services,
  reference: string,
  warn: (warning: CompletionWarning) => void,
  access: CallAccess | undefined,
  order?: Ordering,
): Candidate[] {
  const parsed = parseModelReference(reference, services.registry.reservedNames);
  if (parsed.kind !== 'model')
    throw new InvalidRequestError(`"${reference}" is a deployment; a fallback names a model.`, 'fallbacks');
  const { model, offerings, known } = findModel(services, parsed, warn);
  const candidates = order
    ? routed(services, order, model, offerings, known)
    : offerings.map((offering): Candidate => ({ model, offering, known }));
  for (const candidate of candidates) {
    // The caller's model limits hold for every fallback (per request, deployment or gateway), not just `model`.
    const { provider, model: name } = candidate.offering;
    if (!modelAllowed(access?.models, services.catalog, model.id, `${provider}/${name}`, reference)) {
      const message = `This API key may not use ${model.id}; the fallback was skipped.`;
      candidate.skip = { outcome: 'not_allowed', message };
    }
  }
  return candidates;
}

/** One model's candidates, in the call's routing order, each skipped where the prompt cannot fit its window. */
function routed(
  services: Services,
  { routing, size }: Ordering,
  model: ModelEntry,
  offerings: readonly ProviderOffering[],
  known: boolean,
): Candidate[] {
  // An unlisted model's window is not known: it is sent, and its provider says whether it fits.
  const tooLong = known ? contextTooLong(model, size) : undefined;
  return routeOfferings(offerings, routing, size, latencyOf(services)).map(
    (offering): Candidate => ({
      model,
      offering,
      known,
      ...(tooLong === undefined ? {} : { skip: { outcome: 'context_too_long', message: tooLong } }),
    }),
  );
}

import { type Annotations, createAnnotations } from '../annotations/annotations.ts';
import { worstCost } from '../budgets/estimate-cost.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { DeploymentStore } from '../deployments/store.ts';
import type { CallRecorder } from '../records/call-recorder.ts';
import type { CompletionRequest } from '../types.ts';
import { createExperiments, type ExperimentDependencies } from './experiments.ts';
import type { Experiments } from './experiments-api.ts';

/**
 * A gateway's annotations and experiments, made together: an annotation may target an experiment's cell (owned by
 * its experiment's agent and author), and an experiment shows its cells' annotations.
 */
export function annotationsAndExperiments(options: {
  recorder: CallRecorder;
  deployments: DeploymentStore | undefined;
  catalog: () => Catalog;
  complete: ExperimentDependencies['complete'];
}): { annotations: Annotations; experiments: Experiments } {
  const { recorder } = options;
  let experiments: ReturnType<typeof createExperiments> | undefined;
  const annotations = createAnnotations(recorder.calls, recorder.flush, (experimentId, cellId) =>
    experiments!.cellOwner(experimentId, cellId),
  );
  experiments = createExperiments({
    calls: recorder.calls,
    annotations,
    deployments: options.deployments,
    flush: recorder.flush,
    complete: options.complete,
    worstCost: (request) => requestWorstCost(options.catalog(), request),
  });
  return { annotations, experiments };
}

/** The most a cell's request may cost at its model's dearest offering; 0 for a model the catalog does not price. */
function requestWorstCost(catalog: Catalog, request: CompletionRequest): number {
  const name = request.model;
  const slash = name.indexOf('/');
  const [provider, rest] = slash > 0 ? [name.slice(0, slash), name.slice(slash + 1)] : [undefined, undefined];
  const entry =
    catalog.find(name) ?? (provider && rest ? (catalog.findOffering(provider, rest) ?? catalog.find(rest)) : undefined);
  if (!entry) return 0;
  const candidates = entry.providers.map((offering) => ({ model: entry, offering }));
  const body = request as unknown as Record<string, unknown>;
  return worstCost(body, candidates, { corrections: request.response_format ? 1 : 0 }).usd;
}

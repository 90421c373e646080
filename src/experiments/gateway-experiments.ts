import { catalogModelOf } from '../access/models.ts';
import type { AnnotationStore } from '../annotations/annotation-store.ts';
import { type Annotations, createAnnotations } from '../annotations/annotations.ts';
import { worstCost } from '../budgets/estimate-cost.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { DeploymentStore } from '../deployments/store.ts';
import type { CallRecorder } from '../records/call-recorder.ts';
import type { CompletionRequest } from '../types.ts';
import type { ExperimentStore } from './experiment-store.ts';
import type { createExperiments, ExperimentDependencies } from './experiments.ts';
import type { Experiments } from './experiments-api.ts';

/**
 * A gateway's annotations and experiments, made together: an annotation may target an experiment's cell (owned by
 * its experiment's agent and author), and an experiment shows its cells' annotations.
 */
export function annotationsAndExperiments(options: {
  recorder: CallRecorder;
  /** Where annotations and experiments are kept: beside the call records (`openStores`). */
  stores: { annotations: AnnotationStore; experiments: ExperimentStore };
  deployments: DeploymentStore | undefined;
  catalog: () => Catalog;
  complete: ExperimentDependencies['complete'];
  gateway: GatewayFallbacks;
}): { annotations: Annotations; experiments: Experiments } {
  const { recorder } = options;
  // The experiments' code loads on their first use: a page that never runs one never fetches it (the web bundle).
  let loaded: Promise<ReturnType<typeof createExperiments>> | undefined;
  const load = () =>
    (loaded ??= import('./experiments.ts').then(({ createExperiments }) =>
      createExperiments({
        store: options.stores.experiments,
        calls: recorder.calls,
        annotations,
        deployments: options.deployments,
        flush: recorder.flush,
        catalog: options.catalog,
        complete: options.complete,
        worstCost: (request) => requestWorstCost(options.catalog(), request, options.gateway),
      }),
    ));
  const annotations = createAnnotations(
    options.stores.annotations,
    recorder.calls,
    recorder.flush,
    async (experimentId) => (await load()).cellOwner(experimentId),
  );
  const forward = <K extends keyof Experiments>(name: K): Experiments[K] =>
    (async (...args: unknown[]) => ((await load())[name] as (...args: unknown[]) => unknown)(...args)) as never;
  const experiments: Experiments = {
    create: forward('create'),
    addVersions: forward('addVersions'),
    addInputs: forward('addInputs'),
    run: forward('run'),
    get: forward('get'),
    list: forward('list'),
  };
  return { annotations, experiments };
}

/**
 * The most a cell's request may cost: at the dearest offering of its model and of every fallback (its own and the
 * gateway's), twice when a hedge may run two candidates at once; 0 for models the catalog does not price.
 */
function requestWorstCost(catalog: Catalog, request: CompletionRequest, gateway: GatewayFallbacks): number {
  const asked = request as CompletionRequest & { fallbacks?: unknown; hedge?: unknown };
  const fallbacks = Array.isArray(asked.fallbacks) ? asked.fallbacks.filter((name) => typeof name === 'string') : [];
  const models = new Set([request.model, ...fallbacks, ...gateway.fallbacks]);
  const body = request as unknown as Record<string, unknown>;
  let worst = 0;
  for (const name of models) {
    const entry = catalogModelOf(catalog, name);
    if (!entry) continue;
    const candidates = entry.providers.map((offering) => ({ model: entry, offering }));
    worst = Math.max(worst, worstCost(body, candidates, { corrections: request.response_format ? 1 : 0 }).usd);
  }
  const hedged = (asked.hedge ?? gateway.hedge) ? 2 : 1;
  return worst * hedged;
}

/** The gateway's own fallbacks and hedge, which every cell's call gets unless it says otherwise. */
export interface GatewayFallbacks {
  fallbacks: readonly string[];
  hedge: unknown;
}

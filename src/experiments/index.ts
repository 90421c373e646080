/** Experiments: versions × inputs of an agent, run through the gateway and compared (`gateway.experiments`). */
export * from './caller-types.ts';
export type { ExperimentAnnotationSummary, VersionContent } from './experiment.ts';
export type { ExperimentListQuery, ExperimentStore } from './experiment-store.ts';
export { MemoryExperimentStore, PostgresExperimentStore, SqliteExperimentStore } from './experiment-stores.ts';
export type { Experiments } from './experiments-api.ts';
export { StoredExperiments } from './stored-experiments.ts';

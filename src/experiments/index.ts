/** Experiments: versions × inputs of an agent, run through the gateway and compared (`gateway.experiments`). */
export type {
  CallSample,
  CellStatus,
  Experiment,
  ExperimentAnnotationSummary,
  ExperimentCell,
  ExperimentHeader,
  ExperimentInput,
  ExperimentInputInput,
  ExperimentList,
  ExperimentVersion,
  ExperimentVersionInput,
  FieldComparison,
  VersionContent,
  VersionSummary,
} from './experiment.ts';
export type { ExperimentListQuery, ExperimentStore } from './experiment-store.ts';
export { MemoryExperimentStore, PostgresExperimentStore, SqliteExperimentStore } from './experiment-stores.ts';
export type {
  CreateExperimentInput,
  ExperimentCaller,
  Experiments,
  GetExperimentOptions,
  RunExperimentOptions,
} from './experiments-api.ts';
export { StoredExperiments } from './stored-experiments.ts';

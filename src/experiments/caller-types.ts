/** The experiment shapes a caller names (switchyard-llm/records and this folder's index re-export them as they are). */
export type {
  CallSample,
  CellStatus,
  Experiment,
  ExperimentCell,
  ExperimentHeader,
  ExperimentInput,
  ExperimentInputInput,
  ExperimentList,
  ExperimentVersion,
  ExperimentVersionInput,
  FieldComparison,
  VersionSummary,
} from './experiment.ts';
export type {
  CreateExperimentInput,
  ExperimentCaller,
  GetExperimentOptions,
  RunExperimentOptions,
} from './experiments-api.ts';

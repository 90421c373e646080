/** The experiment shapes a caller names (switchyard-llm/records re-exports them as they are, this folder's index too). */
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

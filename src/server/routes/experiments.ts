import { requireAgent } from '../../access/agents.ts';
import type { Experiment, ExperimentInputInput, ExperimentVersionInput } from '../../experiments/experiment.ts';
import { checkedExperimentPart } from '../../experiments/experiment-schema.ts';
import { requireChange } from '../../experiments/experiments.ts';
import type {
  CreateExperimentInput,
  ExperimentCaller,
  Experiments,
  RunExperimentOptions,
} from '../../experiments/experiments-api.ts';
import type { BackgroundRuns } from '../background-runs.ts';
import { experimentCaller } from '../experiment-caller.ts';
import type { KeyAccess } from '../key-access.ts';
import { readJsonBody } from '../read-json-body.ts';
import { HttpError, json } from '../responses.ts';
import type { Route } from '../router.ts';

/** What the routes and tools need of the gateway. */
export interface ExperimentSource {
  readonly experiments: Experiments;
}

/** The optional `run: true` of a create or add body, taken off the rest. */
export function takeRun(body: unknown): { run: boolean; rest: Record<string, unknown> } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { run: false, rest: {} };
  const { run, ...rest } = body as Record<string, unknown>;
  if (run !== undefined && typeof run !== 'boolean')
    throw new HttpError(400, 'Experiment: run: must be true or false.', { code: 'invalid_value', param: 'run' });
  return { run: run === true, rest };
}

/** Creates an experiment (`POST /v1/experiments`, `create_experiment`); `run`: starts running it in the background. */
export async function createExperiment(
  gateway: ExperimentSource,
  runs: BackgroundRuns,
  input: CreateExperimentInput,
  access: KeyAccess | undefined,
  run: boolean,
): Promise<Experiment> {
  const caller = experimentCaller(access);
  if (run) runs.requireRoom(undefined, caller);
  const experiment = await gateway.experiments.create(input, caller);
  return run ? startRun(gateway, runs, experiment, caller) : experiment;
}

/** Adds versions or inputs; `run`: starts running the new cells. */
export async function addToExperiment(
  gateway: ExperimentSource,
  runs: BackgroundRuns,
  id: string,
  part: { versions: ExperimentVersionInput[] } | { inputs: ExperimentInputInput[] },
  access: KeyAccess | undefined,
  run: boolean,
): Promise<Experiment> {
  const caller = experimentCaller(access);
  if (run) runs.requireRoom(id, caller);
  const experiment =
    'versions' in part
      ? await gateway.experiments.addVersions(id, part.versions, caller)
      : await gateway.experiments.addInputs(id, part.inputs, caller);
  return run ? startRun(gateway, runs, experiment, caller) : experiment;
}

/**
 * Starts running the experiment's missing cells in the background (`POST /v1/experiments/{id}/run`): checked first
 * (the body, then that the key reads the experiment and acts as its agent), then the experiment after `wait_ms`.
 */
export async function runExperiment(
  gateway: ExperimentSource,
  runs: BackgroundRuns,
  id: string,
  body: Record<string, unknown>,
  access: KeyAccess | undefined,
): Promise<Experiment> {
  const { wait_ms, ...options } = body;
  const checked = checkedExperimentPart('run', options);
  const { wait_ms: waitMs = 0 } = checkedExperimentPart('get', wait_ms === undefined ? {} : { wait_ms });
  const caller = experimentCaller(access);
  const experiment = await gateway.experiments.get(id, {}, caller);
  await startRun(gateway, runs, experiment, caller, checked as RunExperimentOptions);
  return waitedExperiment(gateway, id, waitMs, access);
}

async function startRun(
  gateway: ExperimentSource,
  runs: BackgroundRuns,
  experiment: Experiment,
  caller: ExperimentCaller | undefined,
  options: RunExperimentOptions = {},
): Promise<Experiment> {
  requireAgent(caller?.mayUseAgent, experiment.agent_id, 'act');
  await requireChange(caller, experiment);
  // Nothing to run without versions and inputs: no run is started.
  if (experiment.versions.length === 0 || experiment.inputs.length === 0) return experiment;
  await runs.start(gateway.experiments, experiment.id, options, caller);
  return { ...experiment, status: 'running' };
}

/** The experiment (a 404 unless the key reads it), after waiting up to `waitMs` while it is running. */
export async function waitedExperiment(
  gateway: ExperimentSource,
  id: string,
  waitMs: number,
  access: KeyAccess | undefined,
): Promise<Experiment> {
  // The engine waits for runs of this process and, through the store, of any other replica.
  return gateway.experiments.get(id, { wait_ms: waitMs }, experimentCaller(access));
}

/** `GET /v1/experiments`, `list_experiments`: the experiments the key reads, newest first. */
export function listExperiments(
  gateway: ExperimentSource,
  query: { agent_id?: string; limit?: number; cursor?: string },
  access: KeyAccess | undefined,
) {
  return gateway.experiments.list(query, experimentCaller(access));
}

/** The run's answer: 200 once every cell ended, 202 while it runs. */
const statusOf = (experiment: Experiment) => (experiment.status === 'running' ? 202 : 200);

/** A JSON object body, or the 400 that says it must be one. */
export function objectBody(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new HttpError(400, 'The request body must be a JSON object.', { code: 'invalid_json' });
  return value as Record<string, unknown>;
}

/**
 * `POST /v1/experiments/{id}/run` (`chat`): runs the missing cells in the background. The rest of
 * `/v1/experiments` is declared once with its MCP tools (`operations/experiments.ts`).
 */
export function experimentRoutes(gateway: ExperimentSource, runs: BackgroundRuns, maxBodyBytes: number): Route[] {
  return [
    {
      method: 'POST',
      path: /^\/v1\/experiments\/([^/]+)\/run$/,
      auth: 'key',
      scope: 'chat',
      async handle({ request, params, access }) {
        const body = objectBody(await readJsonBody(request, maxBodyBytes));
        const experiment = await runExperiment(gateway, runs, params[0] ?? '', body, access);
        return json(experiment, statusOf(experiment));
      },
    },
  ];
}

/** A number for the schema to check; anything else left as text, for its 400 to name the parameter. */
export const numberOrText = (value: string): number | string => (/^\d{1,6}$/.test(value) ? Number(value) : value);

import { READS_CALLS } from '../../access/scopes.ts';
import type { ExperimentInputInput, ExperimentVersionInput } from '../../experiments/experiment.ts';
import type { CreateExperimentInput } from '../../experiments/experiments-api.ts';
import { firstIssueError } from '../../internal/first-issue.ts';
import { defineOperation, type HttpParts } from '../operation.ts';
import { HttpError } from '../responses.ts';
import {
  addToExperiment,
  createExperiment,
  listExperiments,
  numberOrText,
  objectBody,
  takeRun,
  waitedExperiment,
} from '../routes/experiments.ts';
import { experimentInputs } from './experiment-inputs.ts';

const VERSIONS =
  'A version is one of: { deployment_id } (a stored deployment, pinned), { environment: "production" | "staging" | ' +
  '"dev" } (the agent’s newest deployment there), each with optional overrides ({ model, temperature, … }), or ' +
  'inline { model, messages, output_schema?: { json_schema: <JSON Schema, type object> }, any deployable setting ' +
  '(temperature, max_tokens, …) }, whose message texts may hold {{variables}}. label? titles the column.';
const INPUTS =
  'An input is { variables: { name: value } } (fills the versions’ {{variables}}) and/or { messages } (sent after ' +
  'each version’s own), or { from_calls: { filter, limit } }: copies the inputs of the newest recorded calls that ' +
  'pass a query_completions filter (default: this agent’s; limit default 10, at most 100; only calls this key ' +
  'reads).';
const CELLS =
  'Each version × input is a cell, id "<version id>.<input id>", one call through the gateway made as this key ' +
  '(its models, budgets). Annotate a cell with add_annotations, target { experiment_id, cell_id } and a metric ' +
  '({ name, value }); get_experiment then shows each version’s metric average.';

type ListQuery = Parameters<typeof listExperiments>[1];
const invalid = (error: Parameters<typeof firstIssueError>[1]) => firstIssueError('Experiment', error);
/** HTTP's `run: true` starts the new cells; the MCP tools start them whenever there are some. */
type Run = { run: boolean };
const runOf = ({ body }: HttpParts): Run => ({ run: takeRun(body).run });

export const createExperimentOperation = defineOperation({
  name: 'create_experiment',
  description:
    'Creates an experiment to compare versions of an agent (prompts, models, settings, output schemas) on the ' +
    'same inputs, and starts running it when it has both versions and inputs. Returns the experiment; then ' +
    `poll get_experiment with max_wait_seconds until status is "completed". ${VERSIONS} ${INPUTS} ` +
    'budget_usd: the most all its cells may cost; a cell that could take it past is skipped (budget_exceeded). ' +
    `${CELLS} The key must act as the agent, and may version only its models.`,
  scope: 'chat',
  input: () => experimentInputs().create,
  invalid,
  handle: (input, { gateway, runs, access }, { run }: Run) =>
    createExperiment(gateway, runs, input as CreateExperimentInput, access, run),
  http: {
    method: 'POST',
    path: /^\/v1\/experiments$/,
    body: true,
    input: ({ body }) => takeRun(objectBody(body)).rest,
    flags: runOf,
    status: 201,
  },
  mcp: { flags: (input) => ({ run: (input.versions?.length ?? 0) > 0 && (input.inputs?.length ?? 0) > 0 }) },
});

export const addVersionsOperation = defineOperation({
  name: 'add_versions_to_experiment',
  description:
    `Adds versions (columns) to an experiment and starts running their cells on every input. ${VERSIONS} ` +
    'Identical cells answered before are reused, not paid again.',
  scope: 'chat',
  input: () => experimentInputs().addVersions,
  invalid,
  handle: ({ experiment_id, versions }, { gateway, runs, access }, { run }: Run) =>
    addToExperiment(gateway, runs, experiment_id, { versions: versions as ExperimentVersionInput[] }, access, run),
  http: addRoute('versions'),
  mcp: { flags: () => ({ run: true }) },
});

export const addInputsOperation = defineOperation({
  name: 'add_inputs_to_experiment',
  description: `Adds inputs (rows) to an experiment and starts running their cells for every version. ${INPUTS}`,
  scope: 'chat',
  input: () => experimentInputs().addInputs,
  invalid,
  handle: ({ experiment_id, inputs }, { gateway, runs, access }, { run }: Run) =>
    addToExperiment(gateway, runs, experiment_id, { inputs: inputs as ExperimentInputInput[] }, access, run),
  http: addRoute('inputs'),
  mcp: { flags: () => ({ run: true }) },
});

/** `POST /v1/experiments/{id}/<part>` with `{ <part>: [...], run? }`. */
function addRoute(part: 'versions' | 'inputs') {
  return {
    method: 'POST' as const,
    path: new RegExp(`^/v1/experiments/([^/]+)/${part}$`),
    body: true as const,
    input({ params, body }: HttpParts) {
      const { rest } = takeRun(objectBody(body));
      const extra = Object.keys(rest).find((name) => name !== part);
      if (extra !== undefined)
        throw new HttpError(400, `Experiment: ${extra}: unrecognized key (send { ${part}: [...], run? }).`, {
          code: 'invalid_value',
          param: extra,
        });
      return { experiment_id: params[0], [part]: rest[part] };
    },
    flags: runOf,
  };
}

export const getExperimentOperation = defineOperation({
  name: 'get_experiment',
  description:
    'Reads an experiment: status (running while cells run, then completed), versions, inputs, every cell ' +
    '(status, output, parsed structured output, valid against the schema, cost_usd, latency_ms, error), ' +
    'summaries per version (completed, failed, cost, latency percentiles, metric averages from annotations), ' +
    'comparisons (structured-output fields that differ between versions, per input) and annotations. Pass ' +
    `max_wait_seconds (≤ 60) to wait for running cells; call again while status is "running". ${CELLS}`,
  input: () => experimentInputs().get,
  invalid,
  hints: { readOnlyHint: true },
  handle: ({ experiment_id }, { gateway, access }, { waitMs }: { waitMs: number }) =>
    waitedExperiment(gateway, experiment_id, waitMs, access),
  http: {
    method: 'GET',
    path: /^\/v1\/experiments\/([^/]+)$/,
    input: ({ params }) => ({ experiment_id: params[0] }),
    // Milliseconds over HTTP, checked by the library (a 400 naming wait_ms).
    flags: ({ query }) => ({ waitMs: numberOrText(query.get('wait_ms') ?? '0') as number }),
  },
  mcp: { flags: ({ max_wait_seconds }) => ({ waitMs: (max_wait_seconds ?? 0) * 1000 }) },
});

export const listExperimentsOperation = defineOperation({
  name: 'list_experiments',
  description:
    'Lists the experiments this key reads, newest first (headers: id, agent_id, title, description, ' +
    'budget_usd, author, created_at), optionally of one agent_id; limit and cursor (next_cursor) page.',
  scope: READS_CALLS,
  input: () => experimentInputs().list,
  invalid,
  hints: { readOnlyHint: true },
  handle: (query, { gateway, access }) => listExperiments(gateway, query as ListQuery, access),
  http: {
    method: 'GET',
    path: /^\/v1\/experiments$/,
    input({ query }) {
      const input: Record<string, string | number> = {};
      for (const name of ['agent_id', 'cursor'] as const) {
        const value = query.get(name);
        if (value !== null) input[name] = value;
      }
      const limit = query.get('limit');
      if (limit !== null) input.limit = numberOrText(limit);
      return input;
    },
  },
});

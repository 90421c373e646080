import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import type { ExperimentInputInput, ExperimentVersionInput } from '../../experiments/experiment.ts';
import { experimentSchemas } from '../../experiments/experiment-schema.ts';
import type { CreateExperimentInput } from '../../experiments/experiments-api.ts';
import type { BackgroundRuns } from '../background-runs.ts';
import type { KeyAccess } from '../key-access.ts';
import {
  addToExperiment,
  createExperiment,
  type ExperimentSource,
  listExperiments,
  waitedExperiment,
} from './experiments.ts';
import { asJson } from './mcp-reply.ts';

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

/** Built on the first MCP exchange. */
let inputSchemas: ReturnType<typeof buildInputSchemas> | undefined;

/** The experiment schemas, every member described for the agent reading them. */
function buildInputSchemas() {
  const { create, addVersions, addInputs, list } = experimentSchemas();
  const versions = 'The versions to compare (columns).';
  const inputs = 'The inputs to run them on (rows).';
  const get = z.strictObject({
    experiment_id: z.string().min(1).max(200).describe('The experiment id (exp_…).'),
    max_wait_seconds: z
      .number()
      .int()
      .min(0)
      .max(60)
      .optional()
      .describe('Waits up to this many seconds (at most 60) for running cells to end; default 0.'),
  });
  return {
    create: create.extend({
      title: create.shape.title.describe('Shown as the experiment’s title (default "Experiment of <agent_id>").'),
      description: create.shape.description.describe('What the experiment tries, for whoever reads it.'),
      versions: create.shape.versions.describe(versions),
      inputs: create.shape.inputs.describe(inputs),
    }),
    addVersions: addVersions.extend({ versions: addVersions.shape.versions.describe(versions) }),
    addInputs: addInputs.extend({ inputs: addInputs.shape.inputs.describe(inputs) }),
    get,
    list: list.extend({
      agent_id: list.shape.agent_id.describe('Only this agent’s experiments.'),
      limit: list.shape.limit.describe('How many (newest first).'),
      cursor: list.shape.cursor.describe('The next_cursor of the previous page.'),
    }),
  };
}

/**
 * The experiment tools of `/mcp`, as AnotherAI's: `create_experiment`, `add_versions_to_experiment`,
 * `add_inputs_to_experiment` (each starts running the new cells in the background), `get_experiment` (waits for
 * them) and `list_experiments`: the functions of `/v1/experiments`, under the same key rules (`experimentCaller`).
 */
export function registerExperimentTools(
  server: McpServer,
  gateway: ExperimentSource,
  runs: BackgroundRuns,
  access: KeyAccess,
): void {
  const schemas = (inputSchemas ??= buildInputSchemas());
  server.registerTool(
    'create_experiment',
    {
      description:
        'Creates an experiment to compare versions of an agent (prompts, models, settings, output schemas) on the ' +
        'same inputs, and starts running it when it has both versions and inputs. Returns the experiment; then ' +
        `poll get_experiment with max_wait_seconds until status is "completed". ${VERSIONS} ${INPUTS} ` +
        'budget_usd: the most all its cells may cost; a cell that could take it past is skipped (budget_exceeded). ' +
        `${CELLS} Needs the chat scope and the agent.`,
      inputSchema: schemas.create,
    },
    async (input) => {
      const hasBoth = (input.versions?.length ?? 0) > 0 && (input.inputs?.length ?? 0) > 0;
      return asJson(await createExperiment(gateway, runs, input as CreateExperimentInput, access, hasBoth));
    },
  );
  server.registerTool(
    'add_versions_to_experiment',
    {
      description:
        `Adds versions (columns) to an experiment and starts running their cells on every input. ${VERSIONS} ` +
        'Identical cells answered before are reused, not paid again. Needs the chat scope.',
      inputSchema: schemas.addVersions,
    },
    async ({ experiment_id, versions }) => {
      const part = { versions: versions as ExperimentVersionInput[] };
      return asJson(await addToExperiment(gateway, runs, experiment_id, part, access, true));
    },
  );
  server.registerTool(
    'add_inputs_to_experiment',
    {
      description:
        `Adds inputs (rows) to an experiment and starts running their cells for every version. ${INPUTS} ` +
        'Needs the chat scope.',
      inputSchema: schemas.addInputs,
    },
    async ({ experiment_id, inputs }) => {
      const part = { inputs: inputs as ExperimentInputInput[] };
      return asJson(await addToExperiment(gateway, runs, experiment_id, part, access, true));
    },
  );
  server.registerTool(
    'get_experiment',
    {
      description:
        'Reads an experiment: status (running while cells run, then completed), versions, inputs, every cell ' +
        '(status, output, parsed structured output, valid against the schema, cost_usd, latency_ms, error), ' +
        'summaries per version (completed, failed, cost, latency percentiles, metric averages from annotations), ' +
        'comparisons (structured-output fields that differ between versions, per input) and annotations. Pass ' +
        `max_wait_seconds (≤ 60) to wait for running cells; call again while status is "running". ${CELLS}`,
      inputSchema: schemas.get,
      annotations: { readOnlyHint: true },
    },
    async ({ experiment_id, max_wait_seconds }) =>
      asJson(await waitedExperiment(gateway, experiment_id, (max_wait_seconds ?? 0) * 1000, access)),
  );
  server.registerTool(
    'list_experiments',
    {
      description:
        'Lists the experiments this key reads, newest first (headers: id, agent_id, title, description, ' +
        'budget_usd, author, created_at), optionally of one agent_id; limit and cursor (next_cursor) page. Needs ' +
        'calls:read or calls:read:own.',
      inputSchema: schemas.list,
      annotations: { readOnlyHint: true },
    },
    async (query) => asJson(await listExperiments(gateway, query as ListQuery, access)),
  );
}

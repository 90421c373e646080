import type * as Zod from 'zod';
import { firstIssueError } from '../internal/first-issue.ts';
import { zod } from '../internal/load-zod.ts';
import { callQuerySchemas } from '../records/call-query-schema.ts';
import { MAX_CONCURRENCY, MAX_INPUTS, MAX_SAMPLE, MAX_VERSIONS } from './experiment.ts';
import { MAX_EXPERIMENT_LIMIT } from './experiment-store.ts';

/** Longest wait `get` takes. */
export const MAX_WAIT_MS = 60_000;

/**
 * The zod schemas of experiments (the MCP tools' input schemas too), built on first use. They check the shape; a
 * version's content is then checked as a deployment's version is (`validateDeployment`), with its parameter rows.
 */
export const experimentSchemas = (): ExperimentSchemas => (schemas ??= buildSchemas(zod().z));
let schemas: ExperimentSchemas | undefined;
type ExperimentSchemas = ReturnType<typeof buildSchemas>;

function buildSchemas(z: typeof Zod.z) {
  const noNul = (value: string) => !value.includes('\u0000');
  const text = (max: number) => z.string().min(1).max(max).refine(noNul, 'must not contain U+0000');
  const id = text(200);
  const label = text(200).optional().describe('Shown as the column or row title.');
  // JSON values rather than `unknown`: MCP clients check tool schemas strictly, and `unknown` accepts anything.
  const json = z.json();
  const message = z.object({ role: z.string() }).catchall(json);
  const overrides = z
    .object({})
    .catchall(json)
    .optional()
    .describe('Fields laid over the deployment’s version: model, messages, temperature, output_schema…');

  const version = z
    .union([
      z.strictObject({ deployment_id: id.describe('A deployment (one pinned version).'), overrides, label }),
      z.strictObject({
        environment: z.enum(['production', 'staging', 'dev']).describe('The agent’s newest deployment there.'),
        overrides,
        label,
      }),
      z
        .object({
          model: text(300).describe('A catalog model or <provider>/<model>.'),
          messages: z.array(message).max(1000).describe('The prompt; text may hold {{variables}}.'),
          label,
        })
        .catchall(json)
        .describe('Inline: model, messages, any deployable setting, output_schema: { json_schema }.'),
    ])
    .describe('A version: { deployment_id }, { environment }, or inline { model, messages, … }.');

  const input = z
    .union([
      z.strictObject({
        variables: z.record(z.string(), json).optional().describe('Fills the versions’ {{variables}}.'),
        messages: z.array(message).max(1000).optional().describe('Sent after each version’s own messages.'),
        label,
      }),
      z.strictObject({
        from_calls: z
          .strictObject({
            filter: callQuerySchemas().filter.optional().describe('A call query filter; default: this agent.'),
            limit: z.number().int().min(1).max(MAX_SAMPLE).optional().describe('How many (default 10).'),
          })
          .describe('Copies the inputs of the newest recorded calls passing the filter (duplicates dropped).'),
      }),
    ])
    .describe('An input: { variables, messages } or { from_calls: { filter, limit } }.');

  const versions = z.array(version).max(MAX_VERSIONS);
  const inputs = z.array(input).max(MAX_INPUTS);
  const experimentId = id.describe('The experiment id (exp_…).');

  const create = z.strictObject({
    agent_id: id.describe('The agent the experiment improves.'),
    title: text(200).optional(),
    description: text(4000).optional(),
    budget_usd: z.number().finite().positive().optional().describe('The most its cells may cost together, USD.'),
    versions: versions.optional(),
    inputs: inputs.optional(),
  });
  const run = z.strictObject({
    concurrency: z.number().int().min(1).max(MAX_CONCURRENCY).optional().describe('Cells called at once (4).'),
    reuse: z.boolean().optional().describe('false: call again even when an identical cell was answered before.'),
    retry_failed: z.boolean().optional().describe('Also run the cells that failed before.'),
  });
  const get = z.strictObject({
    wait_ms: z.number().int().min(0).max(MAX_WAIT_MS).optional().describe('Wait this long for running cells.'),
  });
  const list = z.strictObject({
    agent_id: id.optional(),
    limit: z.number().int().min(1).max(MAX_EXPERIMENT_LIMIT).optional(),
    cursor: id.optional(),
  });
  return {
    version,
    input,
    create,
    addVersions: z.strictObject({ experiment_id: experimentId, versions: versions.min(1) }),
    addInputs: z.strictObject({ experiment_id: experimentId, inputs: inputs.min(1) }),
    run,
    get,
    list,
  };
}

/** A value through one of the schemas; a 400 naming the first wrong path (`versions.0.model`). */
export function checkedExperimentPart<Name extends keyof ExperimentSchemas>(
  name: Name,
  value: unknown,
): Zod.output<ExperimentSchemas[Name]> {
  const result = experimentSchemas()[name].safeParse(value ?? {});
  if (result.success) return result.data as Zod.output<ExperimentSchemas[Name]>;
  throw firstIssueError('Experiment', result.error);
}

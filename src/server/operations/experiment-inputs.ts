import type * as Zod from 'zod';
import { experimentSchemas } from '../../experiments/experiment-schema.ts';
import { lazyRequire } from '../../internal/lazy-require.ts';

const loadZod = lazyRequire<typeof Zod>('zod');

/** The experiment operations' inputs: the library's schemas, every member described for the agent reading them. */
export const experimentInputs = () => (inputs ??= buildInputs());
let inputs: ReturnType<typeof buildInputs> | undefined;

function buildInputs() {
  const { z } = loadZod();
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

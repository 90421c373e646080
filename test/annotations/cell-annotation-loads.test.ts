import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { openStores } from '../../src/stores/open-stores.ts';

/**
 * Annotating an experiment's cells reads its versions and inputs once a request, and only once the caller may
 * annotate it: a request of 100 cells of an experiment of 500 large inputs, or of one the caller may not see, must
 * not parse the experiment 100 times.
 */
const PROMPT = [{ role: 'user' as const, content: 'Answer: {{text}}' }];

describe('annotations on cells', () => {
  it('read the experiment’s cells once a request, and not at all for a caller who may not annotate it', async () => {
    const stores = openStores({ engine: 'memory' });
    const loads = { versions: 0, inputs: 0 };
    const { versions, inputs } = stores.experiments;
    stores.experiments.versions = (id) => {
      loads.versions += 1;
      return versions.call(stores.experiments, id);
    };
    stores.experiments.inputs = (id) => {
      loads.inputs += 1;
      return inputs.call(stores.experiments, id);
    };
    const gateway = createGateway({ mock: true, env: {}, stores });
    try {
      const experiment = await gateway.experiments.create({
        agent_id: 'support',
        versions: [{ model: 'gpt-4o-mini', messages: PROMPT }],
        inputs: Array.from({ length: 5 }, (_, at) => ({ variables: { text: `q${at}` } })),
      });
      const ran = await gateway.experiments.run(experiment.id);
      const before = { ...loads };
      await gateway.annotations.add(
        ran.cells.map((cell) => ({ target: { experiment_id: ran.id, cell_id: cell.id }, text: 'seen' })),
      );
      expect(loads.versions - before.versions).toBe(1);
      expect(loads.inputs - before.inputs).toBe(1);
      const refused = await gateway.annotations
        .add([{ target: { experiment_id: ran.id, cell_id: ran.cells[0]!.id }, text: 'x' }], {
          mayAnnotateExperiment: () => false,
        })
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({ status: 404, code: 'cell_not_found' });
      expect(loads.versions - before.versions).toBe(1);
    } finally {
      await gateway.close();
    }
  });
});

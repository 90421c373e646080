import { describe, expect, it } from 'vitest';
import { resolveDeployment } from '../../src/deployments/index.ts';
import { SqliteDeploymentStore } from '../../src/deployments/sqlite-store.ts';
import { MemoryDeploymentStore } from '../../src/entries/stores.ts';
import { createGateway } from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';
import { testCatalog } from '../helpers/test-catalog.ts';
import { makeDeployment } from './fixtures.ts';

/**
 * A deployment call that fails after its deployment was found (a variable missing, a model the key may not use) is
 * recorded as that deployment's: under its agent and id, and masked under its `sensitive_data`.
 */
const CARD = '4111 1111 1111 1111';
const payments = makeDeployment({ agent_id: 'payments' }, { sensitive_data: 'block' });

/** A gateway on the simulator whose one deployment is `payments`. */
const paymentsGateway = () =>
  createGateway({
    catalog: testCatalog,
    mock: createMockProvider(),
    deployments: new MemoryDeploymentStore([payments]),
  });

async function failedRecord(gateway: ReturnType<typeof createGateway>, error: unknown) {
  await gateway.flush();
  const callId = (error as { callId: string }).callId;
  return (await gateway.calls.list({ limit: 50 })).data.find((record) => record.id === callId)!;
}

describe('a deployment call that fails once its deployment is found', () => {
  it('is recorded masked under the deployment’s mode, as the deployment’s and its agent’s', async () => {
    const gateway = paymentsGateway();
    try {
      // {{product}} is missing: a 400 before the guard runs.
      const error = await gateway
        .createCompletion({
          model: 'switchyard/deployment/payments:production#1',
          input: { ticket: `card ${CARD}` },
          metadata: { agent_id: 'someone-else' },
        })
        .catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ status: 400, code: 'missing_variable' });
      const record = await failedRecord(gateway, error);
      expect(JSON.stringify(record)).not.toContain(CARD);
      expect(record).toMatchObject({ deployment_id: 'payments:production#1', agent_id: 'payments' });
    } finally {
      await gateway.close();
    }
  });

  it('a model the key may not use: the same', async () => {
    const gateway = paymentsGateway();
    try {
      const error = await gateway
        .createCompletion(
          { model: 'switchyard/deployment/payments:production#1', input: { product: 'x', ticket: `card ${CARD}` } },
          { access: { keyId: 'key_a', models: ['some-other-model'] } },
        )
        .catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ status: 403 });
      const record = await failedRecord(gateway, error);
      expect(JSON.stringify(record)).not.toContain(CARD);
      expect(record).toMatchObject({ deployment_id: 'payments:production#1', agent_id: 'payments' });
    } finally {
      await gateway.close();
    }
  });
});

describe('a caller’s null for response_format', () => {
  it('removes the stored output schema too, as a null removes any stored setting', async () => {
    const schema = { type: 'object' as const, properties: {}, additionalProperties: false };
    const store = new MemoryDeploymentStore([makeDeployment({}, { output_schema: { json_schema: schema } })]);
    const resolved = await resolveDeployment(store, 'support:production#1', {
      input: { product: 'p', ticket: 't' },
      response_format: null as never,
    });
    expect(resolved.settings.response_format).toBeUndefined();
    const kept = await resolveDeployment(store, 'support:production#1', { input: { product: 'p', ticket: 't' } });
    expect(kept.settings.response_format).toMatchObject({ type: 'json_schema' });
  });
});

describe('an unknown id in a table store', () => {
  it('suggests the agent’s five newest ids without reading its records, and none of another agent’s', async () => {
    const store = new SqliteDeploymentStore(':memory:');
    try {
      for (const number of [1, 2, 3, 4, 5, 6, 7]) await store.put(makeDeployment({ number }));
      await store.put(makeDeployment({ agent_id: 'hidden' }));
      let listed = 0;
      const list = store.list.bind(store);
      store.list = (...args) => {
        listed += 1;
        return list(...args);
      };
      const error = await resolveDeployment(store, 'support:production#9').catch((caught: unknown) => caught);
      expect(error).toMatchObject({ status: 404 });
      expect((error as { knownIds: string[] }).knownIds).toEqual(
        [7, 6, 5, 4, 3].map((number) => `support:production#${number}`),
      );
      const hidden = await resolveDeployment(store, 'hidden:production#1', {}, { mayUseAgent: () => false }).catch(
        (caught: unknown) => caught,
      );
      expect(hidden).toMatchObject({ status: 404, knownIds: [] });
      expect(listed).toBe(0);
    } finally {
      store.close();
    }
  });
});

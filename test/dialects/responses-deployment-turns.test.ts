import { describe, expect, it } from 'vitest';
import { MemoryDeploymentStore } from '../../src/entries/stores.ts';
import { createGateway } from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';
import { makeDeployment } from '../deployments/fixtures.ts';
import { testCatalog } from '../helpers/test-catalog.ts';

/**
 * A deployment's prompt is its instructions: a turn continued with previous_response_id gets the deployment's prompt
 * once, from the deployment it names, never again from the earlier turn's record (a copy more each turn).
 */
const greeter = makeDeployment(
  { agent_id: 'greeter' },
  { messages: [{ role: 'system', content: 'You greet people warmly.' }] },
);

describe('previous_response_id with a deployment', () => {
  it('sends the deployment’s prompt once on every turn', async () => {
    const mock = createMockProvider();
    const gateway = createGateway({ catalog: testCatalog, mock, deployments: new MemoryDeploymentStore([greeter]) });
    try {
      const model = 'switchyard/deployment/greeter:production#1';
      let previous = await gateway.createResponse({ model, input: 'Hello, I am Ada.' });
      for (const input of ['And again.', 'Once more.']) {
        previous = await gateway.createResponse({ model, input, previous_response_id: previous.id });
      }
      const sent = mock.calls.at(-1)!.body.messages;
      const prompts = sent.filter((message) => message.content === 'You greet people warmly.');
      expect(prompts).toHaveLength(1);
      expect(sent[0]).toMatchObject({ role: 'system', content: 'You greet people warmly.' });
      expect(sent.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
        'Hello, I am Ada.',
        'And again.',
        'Once more.',
      ]);
    } finally {
      await gateway.close();
    }
  });
});

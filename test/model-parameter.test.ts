import { describe, expect, it } from 'vitest';
import { parseModelReference } from '../src/completion/parse-model.ts';
import {
  convertLegacyDeploymentReference,
  createGateway,
  InvalidRequestError,
  ModelNotFoundError,
} from '../src/index.ts';
import { reservedProviderNames } from '../src/providers/registry.ts';
import { testCatalog } from './helpers/test-catalog.ts';

const parse = (model: string) => parseModelReference(model, reservedProviderNames);
const hello = [{ role: 'user' as const, content: 'hi' }];

describe('the model parameter grammar', () => {
  it.each([
    ['gpt-4o-latest', { kind: 'model', model: 'gpt-4o-latest' }],
    ['openai/gpt-4o-latest', { kind: 'model', model: 'gpt-4o-latest', provider: 'openai' }],
    ['support-bot/gpt-4o-latest', { kind: 'model', model: 'gpt-4o-latest', agentId: 'support-bot' }],
    [
      'support-bot/groq/llama-3.3-70b-instruct',
      { kind: 'model', model: 'llama-3.3-70b-instruct', provider: 'groq', agentId: 'support-bot' },
    ],
    ['switchyard/deployment/bot:production#3', { kind: 'deployment', deploymentId: 'bot:production#3' }],
    ['deployment/bot:dev#1', { kind: 'deployment', deploymentId: 'bot:dev#1' }],
  ])('%s', (model, expected) => {
    expect(parse(model)).toEqual(expected);
  });

  it('rejects the legacy deployment form with the converted reference in the message', () => {
    expect(() => parse('bot/#3/production')).toThrow(/Use "switchyard\/deployment\/bot:production#3"/);
    expect(convertLegacyDeploymentReference('bot/#12/prod')).toBe('switchyard/deployment/bot:production#12');
    expect(convertLegacyDeploymentReference('bot/#1/development')).toBe('switchyard/deployment/bot:dev#1');
    expect(convertLegacyDeploymentReference('gpt-4o')).toBeUndefined();
  });

  it.each(['a/b/c/d', 'openai/x/y', '/gpt-4o', 'agent/', 'switchyard/gpt-4o'])('rejects %s', (model) => {
    expect(() => parse(model)).toThrow(InvalidRequestError);
  });
});

describe('model resolution in the gateway', () => {
  const gateway = createGateway({ catalog: testCatalog, mock: true });

  it('resolves aliases and synonyms to the pinned id', async () => {
    for (const model of ['gpt-4o-latest', 'gpt-4o', 'gpt-4o-2024-11-20']) {
      const response = await gateway.createCompletion({ model, messages: hello });
      expect(response.model).toBe('gpt-4o-2024-11-20');
    }
  });

  it('metadata.agent_id wins over the model prefix', async () => {
    const prefixed = await gateway.createCompletion({ model: 'billing/gpt-4o-latest', messages: hello });
    expect(prefixed.switchyard.agent_id).toBe('billing');
    const both = await gateway.createCompletion({
      model: 'billing/gpt-4o-latest',
      messages: hello,
      metadata: { agent_id: 'refunds' },
    });
    expect(both.switchyard.agent_id).toBe('refunds');
  });

  it('an unknown model is a 404 with suggestions', async () => {
    const error = await gateway.createCompletion({ model: 'gpt-4o-lates', messages: hello }).catch((caught) => caught);
    expect(error).toBeInstanceOf(ModelNotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
    expect(error.suggestions).toContain('gpt-4o-latest');
    expect(error.message).toContain('Did you mean "gpt-4o-latest"');
  });

  it('a provider that does not serve the model is a 400 naming the ones that do', async () => {
    const error = await gateway
      .createCompletion({ model: 'groq/gpt-4o-latest', messages: hello })
      .catch((caught) => caught);
    expect(error).toMatchObject({ status: 400, code: 'provider_not_serving_model' });
    expect(error.message).toContain('openai, openrouter');
  });

  it('a deployment reference without a deployment store says so', async () => {
    await expect(gateway.createCompletion({ model: 'switchyard/deployment/bot:production#1' })).rejects.toMatchObject({
      code: 'deployment_not_found',
    });
  });
});

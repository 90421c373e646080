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
    ['ollama/llama3.2:3b', { kind: 'model', model: 'llama3.2:3b', provider: 'ollama' }],
    [
      'openrouter/meta-llama/llama-4-scout:free',
      { kind: 'model', model: 'meta-llama/llama-4-scout:free', provider: 'openrouter' },
    ],
    [
      'support-bot/openrouter/qwen/qwen3-max',
      { kind: 'model', model: 'qwen/qwen3-max', provider: 'openrouter', agentId: 'support-bot' },
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

  it.each(['a/b/c/d', '/gpt-4o', 'agent/', 'openai/', 'switchyard/gpt-4o'])('rejects %s', (model) => {
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

  it('an unknown bare id suggests <provider>/<id> for the providers with credentials', async () => {
    const keyed = createGateway({ catalog: testCatalog, env: { OPENAI_API_KEY: 'sk-a', ANTHROPIC_API_KEY: 'sk-b' } });
    const error = await keyed.createCompletion({ model: 'my-finetune', messages: hello }).catch((caught) => caught);
    expect(error).toMatchObject({ status: 404, code: 'model_not_found' });
    expect(error.message).toContain('name its provider: "openai/my-finetune", "anthropic/my-finetune"');
    expect(error.message).not.toContain('groq/');
    const none = createGateway({ catalog: testCatalog, env: {} });
    const bare = await none.createCompletion({ model: 'my-finetune', messages: hello }).catch((caught) => caught);
    expect(bare.message).toContain('name its provider: "<provider>/<model>"');
  });

  it('an unknown model is a 404 with suggestions', async () => {
    const error = await gateway.createCompletion({ model: 'gpt-4o-lates', messages: hello }).catch((caught) => caught);
    expect(error).toBeInstanceOf(ModelNotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
    expect(error.suggestions).toContain('gpt-4o-latest');
    expect(error.message).toContain('Did you mean "gpt-4o-latest"');
  });

  it('a provider the catalog does not list for the model gets the id as written, with a warning', async () => {
    const response = await gateway.createCompletion({ model: 'groq/gpt-4o-latest', messages: hello });
    expect(response.switchyard).toMatchObject({ provider: 'mock', provider_model: 'gpt-4o-latest', model_known: true });
    expect(response.switchyard.warnings.map((warning) => warning.code)).toEqual([
      'offering_not_in_catalog',
      'price_unknown',
    ]);
    expect(response.switchyard.warnings[0]!.message).toContain('its providers: openai, openrouter');
    expect(response.switchyard.cost_usd).toBeNull();
  });

  it('a deployment reference without a deployment store says so', async () => {
    await expect(gateway.createCompletion({ model: 'switchyard/deployment/bot:production#1' })).rejects.toMatchObject({
      code: 'deployment_not_found',
    });
  });
});

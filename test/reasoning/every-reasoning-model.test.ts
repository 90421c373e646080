import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  budgetToEffort,
  createGateway,
  effortToBudget,
  listModels,
  type ModelInfo,
  type ReasoningSetting,
} from '../../src/index.ts';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { type FakeGeminiServer, startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';

/**
 * Every reasoning model in the bundled catalog, through its default provider's adapter and fake server: the
 * provider-neutral setting must arrive as that provider's own knob, following the spec's conversion tables.
 */
let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let gemini: FakeGeminiServer;
let gateway: ReturnType<typeof createGateway>;

beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([
    startFakeOpenAIServer(),
    startFakeAnthropicServer(),
    startFakeGeminiServer(),
  ]);
  const family = [
    'openai',
    'azure',
    'groq',
    'xai',
    'deepseek',
    'mistral',
    'together',
    'fireworks',
    'openrouter',
    'ollama',
  ];
  gateway = createGateway({
    env: {},
    retry: { maxRetries: 0 },
    providers: {
      ...Object.fromEntries(family.map((name) => [name, { apiKey: `key-${name}`, baseURL: openai.url }])),
      anthropic: { apiKey: 'key-anthropic', baseURL: anthropic.url },
      google: { apiKey: 'key-google', baseURL: gemini.url },
    },
  });
});
afterAll(() => Promise.all([openai.close(), anthropic.close(), gemini.close()]));

const EFFORT_RANK = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];
/** Providers that can switch reasoning off for a level-controlled model that allows it. */
const PROVIDERS_WITH_AN_OFF_SWITCH = new Set(['anthropic', 'deepseek']);
const settings: Array<[string, (model: ModelInfo) => ReasoningSetting]> = [
  ['disabled', () => ({ effort: 'disabled' })],
  ['low', () => ({ effort: 'low' })],
  ['medium', () => ({ effort: 'medium' })],
  ['high', () => ({ effort: 'high' })],
  ['budget 35%', (model) => ({ budget: Math.round(model.max_output_tokens * 0.35) })],
];
const reasoningModels = listModels({ reasoning: true }).data.filter((model) => !model.alias_for);

async function send(model: ModelInfo, reasoning: ReasoningSetting) {
  const provider = model.providers[0]!.provider;
  const server = provider === 'anthropic' ? anthropic : provider === 'google' ? gemini : openai;
  const before = server.requests.length;
  const response = await gateway.createCompletion({
    model: `${provider}/${model.id}`,
    messages: [{ role: 'user', content: 'Think.' }],
    reasoning,
  });
  expect(server.requests.length).toBe(before + 1);
  return { body: server.requests.at(-1)!.body, warnings: response.switchyard.warnings.map((warning) => warning.code) };
}

describe.each(reasoningModels.map((model) => [model.id, model] as const))('%s', (_id, model) => {
  const facts = model.reasoning!;
  const provider = model.providers[0]!.provider;

  it.each(settings)('%s', async (_label, makeSetting) => {
    const setting = makeSetting(model);
    const effort = setting.effort ?? budgetToEffort(setting.budget!, model.max_output_tokens);
    const budget = setting.budget ?? effortToBudget(effort, model.max_output_tokens);
    const { body, warnings } = await send(model, setting);

    if (facts.control === 'none') {
      expect(body.reasoning_effort ?? body.thinking ?? body.generationConfig?.thinkingConfig).toBeUndefined();
      expect(warnings).toContain('reasoning_not_configurable');
      return;
    }
    if (facts.control === 'effort' || facts.control === 'level') {
      const sent: string | undefined =
        provider === 'anthropic'
          ? body.output_config?.effort
          : provider === 'google'
            ? body.generationConfig?.thinkingConfig?.thinkingLevel?.toLowerCase()
            : body.reasoning_effort;
      const off = body.thinking?.type === 'disabled' || sent === 'none';
      if (effort === 'disabled') {
        // Off where the model has a "none" level or the provider a switch for it; else the lowest level, and a warning.
        const canSwitchOff =
          facts.efforts!.includes('none') || (facts.can_disable && PROVIDERS_WITH_AN_OFF_SWITCH.has(provider));
        expect(off, model.id).toBe(canSwitchOff);
        expect(warnings.includes('reasoning_not_disabled'), model.id).toBe(!canSwitchOff);
        if (!canSwitchOff) expect(sent, model.id).toBe(facts.efforts![0]);
        return;
      }
      expect(facts.efforts).toContain(sent);
      // The level asked for when the model has it; else the nearest one (no accepted level lies strictly between
      // what was asked and what was sent), with a warning.
      const exact = facts.efforts!.includes(effort);
      expect(warnings.includes('converted_parameter'), model.id).toBe(!exact);
      const [low, high] = [EFFORT_RANK.indexOf(effort), EFFORT_RANK.indexOf(sent!)].sort((a, b) => a - b);
      const closer = facts.efforts!.filter(
        (level) => EFFORT_RANK.indexOf(level) > low! && EFFORT_RANK.indexOf(level) < high!,
      );
      expect(closer).toEqual([]);
      expect(sent === effort).toBe(exact);
      return;
    }
    // Budget control: tokens, clamped to the range the model and its provider take.
    const sentBudget: number | undefined =
      provider === 'anthropic'
        ? body.thinking?.type === 'enabled'
          ? body.thinking.budget_tokens
          : body.thinking?.type === 'disabled'
            ? 0
            : undefined
        : body.generationConfig?.thinkingConfig?.thinkingBudget;
    if (effort === 'disabled' && facts.can_disable) {
      expect(sentBudget).toBe(0);
      expect(warnings).not.toContain('reasoning_not_disabled');
      return;
    }
    const min = facts.min_budget ?? 0;
    // Anthropic keeps room for the answer below the model's output ceiling.
    const max = Math.min(
      facts.max_budget ?? model.max_output_tokens,
      provider === 'anthropic' ? model.max_output_tokens - 1_024 : Infinity,
    );
    const wanted = effort === 'disabled' ? min : budget;
    const expected = Math.max(min, Math.min(wanted, max));
    expect(sentBudget, model.id).toBe(expected);
    const warned = warnings.some((code) => code === 'converted_parameter' || code === 'reasoning_not_disabled');
    expect(warned, model.id).toBe(expected !== budget || effort === 'disabled');
    // Anthropic counts thinking within max_tokens: room is always left for the answer.
    expect(provider !== 'anthropic' || body.max_tokens > sentBudget!, model.id).toBe(true);
  });
});

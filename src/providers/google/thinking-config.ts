import type { ThinkingConfig, ThinkingLevel } from '@google/genai';
import type { ProviderCall } from '../provider.ts';
import { chooseReasoning } from '../reasoning-choice.ts';

/** `call.reasoning` as Gemini's thinking config: a budget on 2.5 models, a level on Gemini 3, never both. */
export function toThinkingConfig(call: ProviderCall): ThinkingConfig | undefined {
  const choice = chooseReasoning(call, 'google', { controls: ['budget', 'level'] });
  if (!choice || choice.kind === 'default') return undefined;
  if (choice.kind === 'off') return { thinkingBudget: 0 };
  if (choice.kind === 'budget') return { thinkingBudget: choice.tokens, includeThoughts: true };
  return { thinkingLevel: choice.level.toUpperCase() as ThinkingLevel, includeThoughts: true };
}

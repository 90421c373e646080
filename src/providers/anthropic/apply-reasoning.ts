import type Anthropic from '@anthropic-ai/sdk';
import type { ProviderCall } from '../provider.ts';
import { chooseReasoning } from '../reasoning-choice.ts';
import type { Params } from './convert-request.ts';
import { relaxToolChoice } from './convert-tools.ts';

/** Room for the visible answer when `max_tokens` has to grow to hold the thinking budget. */
const ANSWER_ROOM = 8_192;

/** The least answer room a thinking budget may leave below the model's output ceiling. */
const MIN_ANSWER_ROOM = 1_024;

/** Claude ≤ 4.5 take a thinking budget; Claude ≥ 4.6 take adaptive thinking and an effort level. */
export function applyReasoning(call: ProviderCall, params: Params): void {
  const ceiling = call.model.max_output_tokens;
  const choice = chooseReasoning(call, 'anthropic', {
    controls: ['budget', 'level'],
    levelSwitchOff: true,
    maxBudget: ceiling - MIN_ANSWER_ROOM,
  });
  if (!choice || choice.kind === 'default') return;
  if (choice.kind === 'off') {
    params.thinking = { type: 'disabled' };
    return;
  }
  if (choice.kind === 'budget') {
    const budget = choice.tokens;
    if (params.max_tokens <= budget) {
      const callerMax = call.body.max_completion_tokens ?? call.body.max_tokens;
      const raised = Math.min(ceiling, budget + (callerMax ?? ANSWER_ROOM));
      if (callerMax != null) {
        call.warn({
          code: 'converted_parameter',
          param: 'max_tokens',
          message:
            `Anthropic counts thinking within max_tokens; it was raised from ${params.max_tokens} to ` +
            `${raised} to hold the ${budget}-token thinking budget.`,
        });
      }
      params.max_tokens = raised;
    }
    params.thinking = { type: 'enabled', budget_tokens: budget, ...display(call) };
  } else {
    params.thinking = { type: 'adaptive', ...display(call) };
    params.output_config = {
      ...params.output_config,
      effort: choice.level as NonNullable<Anthropic.OutputConfig['effort']>,
    };
  }
  relaxToolChoice(call, params);
}

/** The caller's `thinking.display` (the Messages API's), sent as it was given. */
function display(call: ProviderCall): { display?: NonNullable<Anthropic.ThinkingConfigEnabled['display']> } {
  return call.thinkingDisplay ? { display: call.thinkingDisplay } : {};
}

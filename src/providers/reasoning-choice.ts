import { closestEffortLevel } from '../reasoning.ts';
import type { ProviderCall } from './provider.ts';

/**
 * What to ask a provider for, from the caller's provider-neutral reasoning setting and the catalog's facts about the
 * model: the same rules for every provider, with the same warnings. Each adapter then writes the choice in its own
 * wire form (`reasoning_effort`, Anthropic's `thinking`, Gemini's `thinkingConfig`).
 */
export type ReasoningChoice =
  /** Switch reasoning off with the provider's own switch. */
  | { kind: 'off' }
  /** A thinking budget in tokens, within the model's range. */
  | { kind: 'budget'; tokens: number }
  /** An effort or thinking level the model accepts (`none` included, where it is one). */
  | { kind: 'level'; level: string }
  /** The model takes no setting: nothing is sent, and the caller was warned. */
  | { kind: 'default' };

export interface ReasoningOptions {
  /** The kinds of control (the catalog's `reasoning.control`) this provider's API can express. */
  controls: ReadonlyArray<'effort' | 'budget' | 'level'>;
  /** The provider can switch reasoning off for a level-controlled model that allows it (Anthropic, DeepSeek). */
  levelSwitchOff?: boolean;
  /** A lower cap on the budget than the model's own (Anthropic keeps room for the answer below the ceiling). */
  maxBudget?: number;
}

/** The reasoning to send for `call`, or `undefined` when the caller set none. */
export function chooseReasoning(
  call: ProviderCall,
  provider: string,
  options: ReasoningOptions,
): ReasoningChoice | undefined {
  const reasoning = call.reasoning;
  if (!reasoning) return undefined;
  const known = call.model.reasoning;
  const facts = known && known.control !== 'none' && options.controls.includes(known.control) ? known : undefined;
  const id = call.model.id;
  const warn = (code: string, message: string) => call.warn({ code, param: 'reasoning', message });

  if (facts?.control === 'budget') {
    const min = facts.min_budget ?? 0;
    const max = Math.min(facts.max_budget ?? Number.MAX_SAFE_INTEGER, options.maxBudget ?? Number.MAX_SAFE_INTEGER);
    if (reasoning.effort === 'disabled') {
      if (facts.can_disable) return { kind: 'off' };
      warn(
        'reasoning_not_disabled',
        `${id} cannot switch reasoning off; it was sent the smallest thinking budget, ${min} tokens.`,
      );
      return { kind: 'budget', tokens: min };
    }
    const tokens = Math.max(min, Math.min(reasoning.budget, max));
    if (tokens !== reasoning.budget) {
      warn(
        'converted_parameter',
        `${id} takes a thinking budget from ${min} to ${max} tokens; ${reasoning.budget} became ${tokens}.`,
      );
    }
    return { kind: 'budget', tokens };
  }

  if ((facts?.control === 'effort' || facts?.control === 'level') && facts.efforts?.length) {
    const levels = facts.efforts;
    if (reasoning.effort === 'disabled') {
      if (levels.includes('none')) return { kind: 'level', level: 'none' };
      if (facts.can_disable && options.levelSwitchOff) return { kind: 'off' };
      warn(
        'reasoning_not_disabled',
        `${id} cannot switch reasoning off; it was sent the lowest effort, "${levels[0]}".`,
      );
      return { kind: 'level', level: levels[0]! };
    }
    const level = closestEffortLevel(levels, reasoning.effort);
    if (level !== reasoning.effort)
      warn('converted_parameter', `${id} has no "${reasoning.effort}" effort; "${level}" was sent.`);
    return { kind: 'level', level };
  }

  warn('reasoning_not_configurable', `${id} on ${provider} takes no reasoning setting; the model used its default.`);
  return { kind: 'default' };
}

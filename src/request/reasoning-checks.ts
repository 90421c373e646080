import { EFFORTS, OPENAI_EFFORTS } from '../reasoning.ts';
import { fail, isObject } from './parameter-checks.ts';

// The checks of the reasoning parameters, against the effort levels of `src/reasoning.ts`.

export function reasoningEffort(value: unknown): void {
  if (!(OPENAI_EFFORTS as readonly unknown[]).includes(value)) {
    fail(
      `reasoning_effort must be one of ${OPENAI_EFFORTS.join(', ')} (got ${JSON.stringify(value)}). ` +
        'To set a token budget use reasoning: { budget: <tokens> }.',
      'reasoning_effort',
    );
  }
}

export function reasoning(value: unknown): void {
  const shape = `{ budget: <tokens> } or { effort: ${EFFORTS.map((effort) => `"${effort}"`).join(' | ')} }`;
  if (!isObject(value)) fail(`"reasoning" must be ${shape}.`, 'reasoning');
  const hasBudget = value.budget !== undefined;
  const hasEffort = value.effort !== undefined;
  if (hasBudget && hasEffort) fail('reasoning takes either "budget" or "effort", not both.', 'reasoning');
  if (!hasBudget && !hasEffort)
    fail(`"reasoning" needs "budget" (tokens) or "effort" (${EFFORTS.join(', ')}).`, 'reasoning');
  for (const key of Object.keys(value)) {
    if (key !== 'budget' && key !== 'effort')
      fail(`Unknown field reasoning.${key}; reasoning takes "budget" or "effort".`, `reasoning.${key}`);
  }
  if (hasBudget && !(Number.isInteger(value.budget) && (value.budget as number) >= 0)) {
    fail(
      `reasoning.budget must be a whole number of tokens ≥ 0 (got ${JSON.stringify(value.budget)}).`,
      'reasoning.budget',
    );
  }
  if (hasEffort && !(EFFORTS as readonly unknown[]).includes(value.effort)) {
    fail(
      `reasoning.effort must be one of ${EFFORTS.join(', ')} (got ${JSON.stringify(value.effort)}).`,
      'reasoning.effort',
    );
  }
}

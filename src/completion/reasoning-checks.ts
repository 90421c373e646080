import { fail, isObject } from './parameter-checks.ts';

// The checks of the reasoning parameters, and the effort levels they take.

/** `reasoning.effort`: `disabled` switches reasoning off; the others are levels, lowest first. */
export const EFFORTS = ['disabled', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
type Level = Exclude<(typeof EFFORTS)[number], 'disabled'>;
/** `reasoning_effort` as OpenAI clients send it (openai-node's `ReasoningEffort`), lowest first: `none`, the levels. */
export const OPENAI_EFFORTS: ReadonlyArray<'none' | Level> = [
  'none',
  ...EFFORTS.filter((effort): effort is Level => effort !== 'disabled'),
];

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

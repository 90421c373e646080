import { describe, expect, it } from 'vitest';
import { checkShape } from '../../../src/internal/shape.ts';
import { checkChunk, checkCompletion } from '../../../src/providers/openai/answer-shape.ts';
import { toOpenAIRequest } from '../../../src/providers/openai/convert-request.ts';
import { openAIFamily } from '../../../src/providers/openai/family.ts';
import { arrayOrEmpty, normalizeChoice, normalizeUsage } from '../../../src/providers/openai/normalize-answer.ts';
import { callFor, expectConverted, requestFixtures, responseFixtures, streamFixtures } from './wire-fixtures.ts';

/**
 * The OpenAI family's converters on the wire fixtures of test/fixtures/wire/openai/, each case for one provider of
 * the family (`provider`, default openai) with its quirks: the request adjusted to what that provider takes, and its
 * answers and stream chunks brought to OpenAI's own form (`normalize-answer.ts`), then checked as the adapter does.
 */
const quirksOf = (provider = 'openai') => {
  const quirks = openAIFamily[provider];
  if (!quirks) throw new Error(`no provider ${provider} in the OpenAI family`);
  return quirks;
};

describe('OpenAI family: OpenAI request in, the provider’s request out', () => {
  it.each(requestFixtures('openai'))('$name', (fixture) => {
    const quirks = quirksOf(fixture.provider);
    const { call, warnings } = callFor(fixture, quirks.name);
    expectConverted(fixture, () => toOpenAIRequest(call, quirks));
    expect(warnings).toEqual(fixture.warnings);
  });
});

describe('OpenAI family: a provider’s completion in, OpenAI’s form out', () => {
  it.each(responseFixtures('openai'))('$name', (fixture) => {
    const quirks = quirksOf(fixture.provider);
    const completion = structuredClone(fixture.answer) as { choices?: unknown; usage?: unknown };
    for (const choice of arrayOrEmpty(completion.choices)) normalizeChoice(choice, 'message', quirks);
    normalizeUsage(completion.usage);
    expect(completion).toEqual(fixture.expected);
    expect(checkShape(checkCompletion, completion)).toEqual(fixture.problem);
  });
});

describe('OpenAI family: a provider’s stream chunks in, OpenAI’s chunks out', () => {
  it.each(streamFixtures('openai'))('$name', (fixture) => {
    const quirks = quirksOf(fixture.provider);
    const chunks: unknown[] = [];
    let problem: string | undefined;
    for (const event of fixture.events) {
      const chunk = structuredClone(event) as { choices?: unknown; usage?: unknown };
      for (const choice of arrayOrEmpty(chunk.choices)) normalizeChoice(choice, 'delta', quirks);
      if (chunk.usage) normalizeUsage(chunk.usage);
      // The adapter stops at the first chunk that does not fit: the caller gets an invalid-response error.
      problem = checkShape(checkChunk, chunk);
      if (problem) break;
      chunks.push(chunk);
    }
    expect(chunks).toEqual(fixture.expected);
    expect(problem).toEqual(fixture.problem);
    const finished = chunks.some((chunk) =>
      arrayOrEmpty((chunk as { choices: unknown }).choices).some(
        (choice) => (choice as { finish_reason?: unknown }).finish_reason,
      ),
    );
    expect(finished).toBe(fixture.finished);
  });
});

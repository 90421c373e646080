import type { GenerateContentResponse } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { checkShape } from '../../../src/internal/shape.ts';
import { checkResponse } from '../../../src/providers/google/answer-shape.ts';
import { toGeminiRequest } from '../../../src/providers/google/convert-request.ts';
import { toCompletion } from '../../../src/providers/google/convert-response.ts';
import { StreamConverter } from '../../../src/providers/google/stream-converter.ts';
import type { CompletionChunk } from '../../../src/types.ts';
import {
  callFor,
  expectConverted,
  fixClock,
  requestFixtures,
  responseFixtures,
  streamFixtures,
  wire,
} from './wire-fixtures.ts';

/**
 * The Gemini converters on the wire fixtures of test/fixtures/wire/google/. A request comes out as the parameters
 * handed to `@google/genai` (`model`, `contents`, `config`); answers and stream chunks go in as the API sends them.
 */
fixClock();

describe('Gemini: OpenAI request in, generateContent parameters out', () => {
  it.each(requestFixtures('google'))('$name', (fixture) => {
    const { call, warnings } = callFor(fixture, fixture.provider ?? 'google');
    expectConverted(fixture, () => toGeminiRequest(call));
    expect(warnings).toEqual(fixture.warnings);
  });
});

describe('Gemini: a GenerateContentResponse in, an OpenAI completion out', () => {
  it.each(responseFixtures('google'))('$name', (fixture) => {
    expect(checkShape(checkResponse, fixture.answer)).toBeUndefined();
    const dropped: string[] = [];
    const completion = toCompletion(fixture.answer as GenerateContentResponse, fixture.model!, (what) =>
      dropped.push(what),
    );
    expect(wire(completion)).toEqual(fixture.expected);
    expect(dropped).toEqual(fixture.dropped ?? []);
  });
});

describe('Gemini: streamed chunks in, OpenAI chunks out', () => {
  it.each(streamFixtures('google'))('$name', (fixture) => {
    const dropped: string[] = [];
    const converter = new StreamConverter(fixture.model!, (what) => dropped.push(what));
    const chunks: CompletionChunk[] = [];
    for (const event of fixture.events) {
      expect(checkShape(checkResponse, event)).toBeUndefined();
      chunks.push(...converter.convert(event as GenerateContentResponse));
    }
    expect(!converter.truncated).toBe(fixture.finished);
    // The adapter closes a complete stream with the usage chunk; a cut-off one fails instead.
    if (!converter.truncated) chunks.push(...converter.finish());
    expect(wire(chunks)).toEqual(fixture.expected);
    expect(dropped).toEqual(fixture.dropped ?? []);
  });
});

import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { checkShape } from '../../../src/internal/shape.ts';
import { checkMessage, checkStreamEvent } from '../../../src/providers/anthropic/answer-shape.ts';
import { toAnthropicRequest } from '../../../src/providers/anthropic/convert-request.ts';
import { toCompletion } from '../../../src/providers/anthropic/convert-response.ts';
import { apiVersionFor } from '../../../src/providers/anthropic/sampling.ts';
import { StreamConverter } from '../../../src/providers/anthropic/stream-converter.ts';
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

/** The Anthropic Messages converters on the wire fixtures of test/fixtures/wire/anthropic/ (Claude on Vertex too). */
fixClock();

describe('Anthropic: OpenAI request in, Messages request out', () => {
  it.each(requestFixtures('anthropic'))('$name', (fixture) => {
    const provider = fixture.provider ?? 'anthropic';
    const { call, warnings } = callFor(fixture, provider);
    const params = expectConverted(fixture, () => toAnthropicRequest(call, fixture.streaming ?? false, provider));
    if (params) {
      const version = apiVersionFor(call, params as { temperature?: number }, provider);
      expect(version ? { 'anthropic-version': version } : {}).toEqual(fixture.headers ?? {});
    }
    expect(warnings).toEqual(fixture.warnings);
  });
});

describe('Anthropic: a message in, an OpenAI completion out', () => {
  it.each(responseFixtures('anthropic'))('$name', (fixture) => {
    expect(checkShape(checkMessage, fixture.answer)).toBeUndefined();
    expect(wire(toCompletion(fixture.answer as Anthropic.Message))).toEqual(fixture.expected);
  });
});

describe('Anthropic: stream events in, OpenAI chunks out', () => {
  it.each(streamFixtures('anthropic'))('$name', (fixture) => {
    const converter = new StreamConverter(fixture.model ?? 'unknown');
    const chunks: CompletionChunk[] = [];
    for (const event of fixture.events) {
      expect(checkShape(checkStreamEvent, event)).toBeUndefined();
      chunks.push(...converter.handle(event as Anthropic.RawMessageStreamEvent));
    }
    expect(converter.finished).toBe(fixture.finished);
    // The adapter closes a finished stream with the usage chunk; an unfinished one fails as cut off.
    if (converter.finished) chunks.push(converter.usageChunk());
    expect(wire(chunks)).toEqual(fixture.expected);
  });
});

import type { ConverseResponse, ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import { toConverseRequest } from '../../../src/providers/bedrock/convert-request.ts';
import { toCompletion } from '../../../src/providers/bedrock/convert-response.ts';
import { StreamConverter } from '../../../src/providers/bedrock/stream-converter.ts';
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
 * The Bedrock Converse converters on the wire fixtures of test/fixtures/wire/bedrock/. Blobs are base64 on the wire
 * and bytes in the SDK's objects: answers are read as the SDK hands them over, requests compared as it sends them.
 */
fixClock();

/** Converse's blob fields, base64 in the JSON, as the SDK deserializes them (bytes). */
const BLOBS = new Set(['bytes', 'redactedContent']);

function asSdkObject(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asSdkObject);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      BLOBS.has(key) && typeof item === 'string' ? new Uint8Array(Buffer.from(item, 'base64')) : asSdkObject(item),
    ]),
  );
}

describe('Bedrock: OpenAI request in, Converse request out', () => {
  it.each(requestFixtures('bedrock'))('$name', (fixture) => {
    const { call, warnings } = callFor(fixture, 'bedrock');
    expectConverted(fixture, () => toConverseRequest(call));
    expect(warnings).toEqual(fixture.warnings);
  });
});

describe('Bedrock: a Converse answer in, an OpenAI completion out', () => {
  it.each(responseFixtures('bedrock'))('$name', (fixture) => {
    const answer = asSdkObject(fixture.answer) as ConverseResponse;
    expect(wire(toCompletion(answer, fixture.model!, fixture.id!))).toEqual(fixture.expected);
  });
});

describe('Bedrock: ConverseStream events in, OpenAI chunks out', () => {
  it.each(streamFixtures('bedrock'))('$name', (fixture) => {
    const converter = new StreamConverter(fixture.id!, fixture.model!);
    const chunks: CompletionChunk[] = [];
    for (const event of fixture.events) chunks.push(...converter.convert(asSdkObject(event) as ConverseStreamOutput));
    expect(converter.finished).toBe(fixture.finished);
    expect(wire(chunks)).toEqual(fixture.expected);
  });
});

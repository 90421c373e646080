import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { defaultCatalog } from '../../../src/catalog/default-catalog.ts';
import { uncataloguedModel } from '../../../src/catalog/model-profile.ts';
import type { ProviderCall, ResolvedReasoning } from '../../../src/providers/provider.ts';
import { builtInRegistry } from '../../../src/providers/registry.ts';
import type { CompletionWarning } from '../../../src/types.ts';

/**
 * The wire fixtures of test/fixtures/wire/<provider>/: one JSON file per case, written by hand from the providers'
 * wire formats, in three folders. `request/`: an OpenAI request in, the provider's request out (or the error the
 * converter throws), with the exact warnings. `response/`: a provider's answer in, the OpenAI completion out.
 * `stream/`: a provider's stream events in, the OpenAI chunks out, and whether the stream was complete.
 */

/** Every `created` the converters write, the clock being fixed at 2026-11-22T00:00:00Z. */
export const CREATED = 1_795_305_600;

interface Fixture {
  name: string;
  /** The provider the case is for, when not the folder's (Claude on Vertex, a provider of the OpenAI family). */
  provider?: string;
}

export interface RequestFixture extends Fixture {
  /** The OpenAI body as the adapter receives it: `model` is the provider's own model name. */
  request: Record<string, unknown>;
  streaming?: boolean;
  reasoning?: ResolvedReasoning;
  promptCache?: 'auto';
  /** The model is not in the catalog: the call carries the provider's profile of unlisted models. */
  uncatalogued?: boolean;
  /** The provider's request, as its wire JSON (bytes as base64). */
  expected?: unknown;
  /** Headers the adapter sends besides the SDK's (Anthropic: the model's own API version). */
  headers?: Record<string, string>;
  /** The converter refuses the request instead: the error's class, message and param. */
  error?: { name: string; message: string; param: string | null };
  warnings: CompletionWarning[];
}

export interface ResponseFixture extends Fixture {
  /** The model name the adapter passes (the request's), where the converter takes one. */
  model?: string;
  /** The completion id the adapter makes up (Bedrock's answers have none). */
  id?: string;
  answer: unknown;
  expected: unknown;
  /** Parts the converter reported as left out (Gemini's code execution, …), in order. */
  dropped?: string[];
  /** The answer does not fit OpenAI's shape once normalized: the problem the adapter reports. */
  problem?: string;
}

export interface StreamFixture extends Fixture {
  model?: string;
  id?: string;
  events: unknown[];
  expected: unknown[];
  /** Whether the converter saw the stream end properly (else the adapter reports it cut off). */
  finished: boolean;
  /** What the SDK threw after `events`: an error the provider sent inside the stream. */
  error?: unknown;
  dropped?: string[];
  /** A chunk that does not fit OpenAI's shape once normalized: the problem, and `expected` holds the chunks before. */
  problem?: string;
}

const root = fileURLToPath(new URL('../../fixtures/wire/', import.meta.url));

function load<T>(provider: string, kind: string): T[] {
  const directory = join(root, provider, kind);
  return readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(join(directory, file), 'utf8')) as T);
}

export const requestFixtures = (provider: string) => load<RequestFixture>(provider, 'request');
export const responseFixtures = (provider: string) => load<ResponseFixture>(provider, 'response');
export const streamFixtures = (provider: string) => load<StreamFixture>(provider, 'stream');

/** Fixes the clock, so the `created` of every converted answer is `CREATED`. */
export function fixClock(): void {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: CREATED * 1000 });
  });
  afterAll(() => {
    vi.useRealTimers();
  });
}

/**
 * The `ProviderCall` an adapter is handed for a request fixture, as the pipeline builds it: the catalog's entry of
 * the model the provider serves under that name (or the provider's profile of unlisted models), and a warning list.
 */
export function callFor(
  fixture: RequestFixture,
  provider: string,
): { call: ProviderCall; warnings: CompletionWarning[] } {
  const warnings: CompletionWarning[] = [];
  const body = fixture.request as unknown as ProviderCall['body'];
  const profile = builtInRegistry.get(provider)?.uncatalogued;
  const model = fixture.uncatalogued
    ? uncataloguedModel(body.model, provider, profile!)
    : defaultCatalog().findOffering(provider, body.model);
  if (!model) throw new Error(`${fixture.name}: the catalog has no ${provider} offering named ${body.model}`);
  const call: ProviderCall = {
    body,
    model,
    modelKnown: !fixture.uncatalogued,
    promptCache: fixture.promptCache ?? false,
    reasoning: fixture.reasoning,
    signal: undefined,
    warn: (warning) => warnings.push(warning),
  };
  return { call, warnings };
}

/** A value as it goes over the wire: JSON, with bytes as base64 (how the AWS SDK writes Converse's blobs). */
export function wire(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, function (this: Record<string, unknown>, key, item) {
      const original = this[key];
      return original instanceof Uint8Array ? Buffer.from(original).toString('base64') : item;
    }),
  );
}

/** Runs a request converter on a fixture: its output as wire JSON, or the error it threw, as the fixture says. */
export function expectConverted(fixture: RequestFixture, convert: () => unknown): unknown {
  let output: unknown;
  try {
    output = convert();
  } catch (error) {
    if (!fixture.error) throw error;
    const { name, message, param } = error as { name: string; message: string; param: string | null };
    expect({ name, message, param }).toEqual(fixture.error);
    return undefined;
  }
  expect(fixture.error, 'the converter was expected to refuse the request').toBeUndefined();
  expect(wire(output)).toEqual(fixture.expected);
  return output;
}

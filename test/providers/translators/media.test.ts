import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toBedrockImageRequest } from '../../../src/providers/bedrock/image-request.ts';
import { imagenParameters } from '../../../src/providers/google/image-parameters.ts';
import { inlineImagesOf } from '../../../src/providers/google/inline-images.ts';
import type { ImageBody } from '../../../src/providers/media-api.ts';
import { openAIFamily } from '../../../src/providers/openai/family.ts';
import { imageBodyFor } from '../../../src/providers/openai/media-params.ts';
import type { CompletionWarning } from '../../../src/types.ts';

/**
 * The media converters on hand-written wire fixtures (test/fixtures/wire/<provider>/media/): an OpenAI images body
 * in, the provider's body out with the exact warnings (Bedrock's: the InvokeModel body of Amazon's image models);
 * Gemini's answer parts in, the images out.
 */
const root = join(import.meta.dirname, '../../fixtures/wire');
function fixtures(provider: string): Array<{ name: string } & Record<string, any>> {
  const dir = join(root, provider, 'media');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => ({ name: file.replace(/\.json$/, ''), ...JSON.parse(readFileSync(join(dir, file), 'utf8')) }));
}

function callOf(body: ImageBody, model = 'm') {
  const warnings: CompletionWarning[] = [];
  return { call: { model, body, signal: undefined, warn: (w: CompletionWarning) => warnings.push(w) }, warnings };
}

describe('OpenAI family: an OpenAI images body in, the provider’s body out', () => {
  it.each(fixtures('openai'))('$name', (fixture) => {
    const { call, warnings } = callOf(fixture.body);
    expect(imageBodyFor(openAIFamily[fixture.provider]!, call)).toEqual(fixture.expected);
    expect(warnings).toEqual(fixture.warnings);
  });
});

describe('Google: an OpenAI images body in, Imagen’s parameters out; Gemini’s parts in, images out', () => {
  it.each(fixtures('google').filter((fixture) => fixture.body))('$name', (fixture) => {
    const { call, warnings } = callOf(fixture.body);
    expect(imagenParameters(call)).toEqual(fixture.expected);
    expect(warnings).toEqual(fixture.warnings);
  });

  it.each(fixtures('google').filter((fixture) => fixture.parts))('$name', (fixture) => {
    expect(inlineImagesOf(fixture.parts)).toEqual(fixture.expected);
  });
});

describe('Bedrock: an OpenAI images body in, the InvokeModel TEXT_IMAGE body of Nova Canvas or Titan out', () => {
  it.each(fixtures('bedrock'))('$name', (fixture) => {
    const { call, warnings } = callOf(fixture.body, fixture.model);
    expect(toBedrockImageRequest(call)).toEqual(fixture.expected);
    expect(warnings).toEqual(fixture.warnings);
  });
});

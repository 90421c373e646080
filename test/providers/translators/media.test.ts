import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toBedrockImageRequest } from '../../../src/providers/bedrock/image-request.ts';
import { imagenParameters } from '../../../src/providers/google/image-parameters.ts';
import { inlineImagesOf } from '../../../src/providers/google/inline-images.ts';
import { geminiSpeechOf, geminiSpeechRequest } from '../../../src/providers/google/speech.ts';
import type { ImageBody, SpeechBody } from '../../../src/providers/media-api.ts';
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

function callOf<Body = ImageBody>(body: Body, model = 'm') {
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

/** A WAV file's header fields and samples, read here by hand (not by the code under test). */
function readWav(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  expect([tag(0), tag(8), tag(12), tag(36)]).toEqual(['RIFF', 'WAVE', 'fmt ', 'data']);
  expect(view.getUint32(4, true)).toBe(bytes.length - 8);
  expect(view.getUint32(40, true)).toBe(bytes.length - 44);
  return {
    sampleRate: view.getUint32(24, true),
    channels: view.getUint16(22, true),
    bits: view.getUint16(34, true),
    data: Buffer.from(bytes.subarray(44)).toString('base64'),
  };
}

describe('Google: an OpenAI speech body in, Gemini TTS’s request out; its PCM answer in, the audio out', () => {
  it.each(fixtures('google').filter((fixture) => fixture.speech))('$name', (fixture) => {
    const { call, warnings } = callOf<SpeechBody>(fixture.speech);
    expect(geminiSpeechRequest(call)).toEqual(fixture.expected);
    expect(warnings).toEqual(fixture.warnings);
  });

  it.each(fixtures('google').filter((fixture) => fixture.speechAnswer))('$name', (fixture) => {
    const warnings: CompletionWarning[] = [];
    const speech = geminiSpeechOf(fixture.speechAnswer, fixture.responseFormat, (w) => warnings.push(w));
    expect(warnings).toEqual(fixture.warnings);
    if (fixture.problem) return expect(speech).toBe(fixture.problem);
    if (typeof speech === 'string') throw new Error(speech);
    const { audio, ...rest } = speech;
    const bytes = fixture.expected.wav ? { wav: readWav(audio) } : { audio: Buffer.from(audio).toString('base64') };
    expect({ ...rest, ...bytes }).toEqual(fixture.expected);
  });
});

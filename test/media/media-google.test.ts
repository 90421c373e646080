import { afterAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { pngSize } from '../../src/internal/png.ts';
import { startFakeGeminiServer } from '../fake-servers/gemini-server.ts';

/** Google's image models against the fake Gemini API: Imagen's `:predict`, Gemini's `inlineData` images. */
const gemini = await startFakeGeminiServer();
afterAll(() => gemini.close());
const gateway = createGateway({
  env: {},
  providers: { google: { apiKey: 'gemini-test', baseURL: gemini.url } },
  retry: { maxRetries: 0 },
});
const PNG = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]).toString('base64');

describe('images on Google', () => {
  it('Imagen: :predict with sampleCount and the nearest aspect ratio; dropped parameters are warned', async () => {
    const answer = await gateway.createImage({
      model: 'imagen-4.0-generate-001',
      prompt: 'a fjord',
      n: 2,
      size: '1536x1024',
      quality: 'high',
    });
    const sent = gemini.requests.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/imagen-4.0-generate-001:predict');
    expect(sent.body).toEqual({
      instances: [{ prompt: 'a fjord' }],
      parameters: { sampleCount: 2, aspectRatio: '4:3' },
    });
    expect(answer.data).toHaveLength(2);
    expect(pngSize(Buffer.from(answer.data![0]!.b64_json!, 'base64'))).toEqual({ width: 3, height: 2 });
    expect(answer.switchyard.warnings.map((warning) => [warning.code, warning.param])).toEqual(
      expect.arrayContaining([
        ['converted_parameter', 'size'],
        ['unsupported_parameter', 'quality'],
        ['price_unknown', undefined],
      ]),
    );
    expect(answer.switchyard.cost_usd).toBeNull();
  });

  it('Gemini image model: generateContent with responseModalities, the inlineData part as b64_json', async () => {
    gemini.enqueue({
      parts: [{ text: 'Here it is.' }, { inlineData: { mimeType: 'image/png', data: PNG } }],
      usage: {
        promptTokenCount: 9,
        candidatesTokenCount: 1296,
        totalTokenCount: 1305,
        candidatesTokensDetails: [
          { modality: 'TEXT', tokenCount: 6 },
          { modality: 'IMAGE', tokenCount: 1290 },
        ],
      },
    });
    const answer = await gateway.createImage({ model: 'gemini-2.5-flash-image', prompt: 'a fjord' });
    const sent = gemini.requests.at(-1)!;
    expect(sent.action).toBe('generateContent');
    expect(sent.body).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'a fjord' }] }],
      generationConfig: { responseModalities: ['TEXT', 'IMAGE'] },
    });
    expect(answer.data).toEqual([{ b64_json: PNG }]);
    expect(answer.usage).toMatchObject({
      input_tokens: 9,
      output_tokens: 1296,
      output_tokens_details: { image_tokens: 1290, text_tokens: 6 },
    });
    // Google's rates, as the chat catalog bills the same model: $0.30 in, image tokens $30 and text $2.50 out per 1M.
    expect(answer.switchyard.cost_usd).toBeCloseTo((9 * 0.3 + 1290 * 30 + 6 * 2.5) / 1e6, 9);
  });

  it('Gemini edits send the image as an inlineData part; an answer without one is the provider’s fault', async () => {
    gemini.enqueue({ parts: [{ inlineData: { mimeType: 'image/png', data: PNG } }] }, { text: 'I cannot draw that.' });
    const image = { data: new Uint8Array([1, 2, 3]), name: 'a.png', type: 'image/png' };
    await gateway.editImage({ model: 'gemini-2.5-flash-image', prompt: 'brighter', image });
    expect(gemini.requests.at(-1)!.body.contents[0].parts).toEqual([
      { inlineData: { mimeType: 'image/png', data: 'AQID' } },
      { text: 'brighter' },
    ]);
    const error = await gateway.createImage({ model: 'gemini-2.5-flash-image', prompt: 'x' }).catch((e) => e);
    expect(error.message).toContain('without an image part');
    // Google's answer is blamed; Vertex AI, the model's other offering, was not set up here (said, never called).
    expect(error.attempts).toMatchObject([
      { provider: 'google', outcome: 'invalid_response' },
      { provider: 'vertex', outcome: 'missing_credentials' },
    ]);
  });

  it('Gemini edits say what they drop: a mask, and url answers (base64 comes back)', async () => {
    gemini.enqueue({ parts: [{ inlineData: { mimeType: 'image/png', data: PNG } }] });
    const image = { data: new Uint8Array([1, 2, 3]), name: 'a.png', type: 'image/png' };
    const mask = { data: new Uint8Array([4, 5, 6]), name: 'm.png', type: 'image/png' };
    const answer = await gateway.editImage({
      model: 'gemini-2.5-flash-image',
      prompt: 'brighter',
      image,
      mask,
      response_format: 'url',
    });
    expect(answer.data?.[0]?.b64_json).toBe(PNG);
    expect(answer.switchyard.warnings.map((warning) => [warning.code, warning.param])).toEqual(
      expect.arrayContaining([
        ['unsupported_parameter', 'mask'],
        ['converted_parameter', 'response_format'],
      ]),
    );
  });
});

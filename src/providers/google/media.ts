import type { ImagesResponse } from 'openai/resources/images';
import { InvalidRequestError } from '../../errors.ts';
import { toBase64 } from '../../internal/bytes.ts';
import { isPlainObject } from '../../internal/shape.ts';
import type { ErrorMapper } from '../error-mapper.ts';
import type { ImageBody, ImageEditBody, MediaApi, MediaCall, ProviderSpeech, SpeechBody } from '../media-api.ts';
import type { ResolvedProviderSettings } from '../provider.ts';
import { contentBlocked, invalidResponse } from '../provider-errors.ts';
import { endpointOf } from '../wire/http-sender.ts';
import { wireHeaders } from '../wire/wire-headers.ts';
import { postJson } from '../wire/wire-post.ts';
import { geminiImageParameters, imagenParameters } from './image-parameters.ts';
import { inlineImagesOf } from './inline-images.ts';
import { blockedBecause } from './map-finish-reason.ts';
import { checkedModelName } from './model-name.ts';
import { geminiSpeechOf, geminiSpeechRequest } from './speech.ts';

/**
 * Where Google's media models are called and how: the Gemini API's `…/v1beta` with its key, or Vertex AI's
 * `…/projects/<p>/locations/<l>/publishers/google` with an OAuth token (`headers` asked once a call).
 */
export interface GoogleMediaEndpoint {
  root: string;
  headers(): Promise<Record<string, string>>;
}

/** The Gemini API's endpoint: the key in `x-goog-api-key`, never in the URL. */
export function geminiApiEndpoint(settings: ResolvedProviderSettings, root: string): GoogleMediaEndpoint {
  const headers = wireHeaders({ 'x-goog-api-key': settings.apiKey }, settings.headers, 'application/json');
  return { root, headers: async () => headers };
}

/**
 * Google's image generation in OpenAI's shapes: Imagen models through `:predict` (`instances[].prompt`,
 * `parameters.sampleCount`), Gemini image models through `:generateContent` with `responseModalities: ["IMAGE"]`,
 * their `inlineData` parts as `b64_json` images (one request per image asked for). Edits are the Gemini models':
 * the images go in as `inlineData` parts beside the prompt. Speech is the Gemini TTS models' `generateContent` with
 * `responseModalities: ["AUDIO"]` (`speech.ts`). On the REST API, whichever the chat transport; the same for the
 * Gemini API and Vertex AI, but for the endpoint.
 */
export function googleMedia(
  settings: ResolvedProviderSettings,
  target: GoogleMediaEndpoint,
  errors: ErrorMapper,
): MediaApi {
  const post = async (call: MediaCall<unknown>, action: string, body: unknown) => {
    const endpoint = endpointOf(
      target.root,
      `/models/${checkedModelName(call.model, errors.scope(call.model).provider)}:${action}`,
    );
    try {
      const headers = await target.headers();
      const request = { endpoint, headers, body: JSON.stringify(body), signal: call.signal };
      return await postJson(settings.send, { ...request, timeoutMs: settings.timeoutMs });
    } catch (error) {
      throw errors.map(error, call.model, { signal: call.signal });
    }
  };

  async function imagen(call: MediaCall<ImageBody>): Promise<ImagesResponse> {
    const answer = (await post(call, 'predict', {
      instances: [{ prompt: call.body.prompt }],
      parameters: imagenParameters(call),
    })) as { predictions?: Array<{ bytesBase64Encoded?: unknown }> };
    const images = (isPlainObject(answer) && Array.isArray(answer.predictions) ? answer.predictions : [])
      .map((prediction) => prediction?.bytesBase64Encoded)
      .filter((data): data is string => typeof data === 'string');
    if (images.length === 0) throw invalidResponse(errors.scope(call.model), 'no predictions with image bytes');
    return { created: Math.floor(Date.now() / 1000), data: images.map((data) => ({ b64_json: data })) };
  }

  async function gemini(call: MediaCall<ImageBody | ImageEditBody>): Promise<ImagesResponse> {
    const { prompt, n, image } = call.body as ImageEditBody;
    geminiImageParameters(call);
    const inline = (image ?? []).map((file) => ({ inlineData: { mimeType: file.type, data: toBase64(file.data) } }));
    const body = {
      contents: [{ role: 'user', parts: [...inline, { text: prompt }] }],
      generationConfig: { responseModalities: ['TEXT', 'IMAGE'] },
    };
    const data: NonNullable<ImagesResponse['data']> = [];
    const usage = { input_tokens: 0, output_tokens: 0 };
    let imageTokens = 0;
    // One candidate per request for these models: `n` images are `n` requests.
    for (let index = 0; index < (n ?? 1); index++) {
      const answer = (await post(call, 'generateContent', body)) as {
        candidates?: Array<{ content?: { parts?: unknown } }>;
        usageMetadata?: {
          promptTokenCount?: number;
          candidatesTokenCount?: number;
          candidatesTokensDetails?: Array<{ modality?: string; tokenCount?: number }>;
        };
      };
      const images = inlineImagesOf(answer?.candidates?.[0]?.content?.parts);
      const blocked = images.length === 0 ? blockedBecause(answer) : undefined;
      if (blocked) throw contentBlocked(errors.scope(call.model), blocked);
      if (images.length === 0) throw invalidResponse(errors.scope(call.model), 'an answer without an image part');
      data.push(...images.map((found) => ({ b64_json: found.data })));
      usage.input_tokens += answer.usageMetadata?.promptTokenCount ?? 0;
      usage.output_tokens += answer.usageMetadata?.candidatesTokenCount ?? 0;
      // Gemini bills image tokens and text tokens at different rates: told apart by the modality it reports.
      const details = answer.usageMetadata?.candidatesTokensDetails ?? [];
      const counted = details.find((detail) => detail.modality === 'IMAGE')?.tokenCount;
      imageTokens += counted ?? answer.usageMetadata?.candidatesTokenCount ?? 0;
    }
    const total = usage.input_tokens + usage.output_tokens;
    return {
      created: Math.floor(Date.now() / 1000),
      data,
      usage: {
        ...usage,
        total_tokens: total,
        input_tokens_details: { text_tokens: usage.input_tokens, image_tokens: 0 },
        output_tokens_details: { image_tokens: imageTokens, text_tokens: usage.output_tokens - imageTokens },
      },
    };
  }

  async function createSpeech(call: MediaCall<SpeechBody>): Promise<ProviderSpeech> {
    const answer = await post(call, 'generateContent', geminiSpeechRequest(call));
    const speech = geminiSpeechOf(answer, call.body.response_format, call.warn);
    const blocked = typeof speech === 'string' ? blockedBecause(answer) : undefined;
    if (blocked) throw contentBlocked(errors.scope(call.model), blocked);
    if (typeof speech === 'string') throw invalidResponse(errors.scope(call.model), speech);
    return speech;
  }

  return {
    createSpeech,
    generateImage: (call) => (call.model.startsWith('imagen') ? imagen(call) : gemini(call)),
    editImage: async (call) => {
      if (call.model.startsWith('imagen')) {
        throw new InvalidRequestError(
          `${call.model} cannot edit images here: edits go to Gemini's image models (generateContent), not Imagen.`,
          'model',
          'model_not_supported',
        );
      }
      return gemini(call);
    },
  };
}

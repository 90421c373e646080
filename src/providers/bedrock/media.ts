import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { ImagesResponse } from 'openai/resources/images';
import { isPlainObject } from '../../internal/shape.ts';
import type { ErrorMapper } from '../error-mapper.ts';
import type { MediaApi } from '../media-api.ts';
import { invalidResponse } from '../provider-errors.ts';
import { toBedrockImageRequest } from './image-request.ts';

type Sdk = typeof import('@aws-sdk/client-bedrock-runtime');

/**
 * Bedrock's image generation in OpenAI's shapes: Amazon Nova Canvas and Titan Image Generator through InvokeModel
 * (`POST /model/<id>/invoke`), sent by the chat adapter's client, so signed as its Converse calls are (SigV4, or a
 * Bedrock API key) and carried by the same fetch handler. The answer's `images` (base64) become `b64_json` images.
 */
export function bedrockMedia(client: BedrockRuntimeClient, sdk: Sdk, errors: ErrorMapper): MediaApi {
  return {
    async generateImage(call) {
      // Converted first: a request the model cannot take is the caller's 400, never sent.
      const body = JSON.stringify(toBedrockImageRequest(call));
      let bytes: Uint8Array;
      try {
        const command = new sdk.InvokeModelCommand({
          modelId: call.model,
          contentType: 'application/json',
          accept: 'application/json',
          body: new TextEncoder().encode(body),
        });
        const response = await client.send(command, call.signal ? { abortSignal: call.signal } : {});
        bytes = response.body;
      } catch (error) {
        throw errors.map(error, call.model, { signal: call.signal });
      }
      const answer = parseJson(new TextDecoder().decode(bytes));
      const images = isPlainObject(answer) && Array.isArray(answer.images) ? answer.images : [];
      const data = images.filter((image): image is string => typeof image === 'string' && image.length > 0);
      if (data.length === 0) {
        const said = isPlainObject(answer) && typeof answer.error === 'string' ? ` (${answer.error})` : '';
        throw invalidResponse(errors.scope(call.model), `an InvokeModel answer without images${said}`);
      }
      const response: ImagesResponse = {
        created: Math.floor(Date.now() / 1000),
        data: data.map((b64) => ({ b64_json: b64 })),
      };
      return response;
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

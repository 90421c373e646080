import type { ImagesResponse } from 'openai/resources/images';
import { isPlainObject } from '../../internal/shape.ts';
import type { ErrorMapper } from '../error-mapper.ts';
import type { FileBody, ImageBody, MediaApi, MediaCall } from '../media-api.ts';
import type { ResolvedProviderSettings } from '../provider.ts';
import { invalidResponse } from '../provider-errors.ts';
import { HttpStatusError } from '../wire/wire-post.ts';
import type { OpenAIFamilyQuirks } from './family.ts';
import { imageBodyFor } from './media-params.ts';

const SPEECH_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

/**
 * The media APIs of an OpenAI-compatible provider, those its quirks name: `/images/generations` (JSON),
 * `/images/edits` and `/audio/transcriptions` (multipart), `/audio/speech` (JSON in, audio bytes out). Sent with the
 * runtime's `fetch` (or the provider's own): multipart bodies and binary answers are outside the JSON wire transport.
 */
export function openAIMedia(settings: ResolvedProviderSettings, quirks: OpenAIFamilyQuirks, errors: ErrorMapper) {
  const send = settings.fetch ?? globalThis.fetch;
  const base = settings.baseURL.replace(/\/+$/, '');
  const headers: Record<string, string> = {
    ...settings.headers,
    ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
  };

  async function post(call: MediaCall<unknown>, path: string, body: string | FormData): Promise<Response> {
    try {
      // A form is encoded here, to bytes and its boundary: a FormData body would leave the pooled transport for the
      // runtime's fetch, whose undici does not take the pool's dispatcher (UND_ERR_INVALID_ARG on Node 24).
      const encoded = typeof body === 'string' ? undefined : new Response(body);
      const type = encoded ? encoded.headers.get('content-type')! : 'application/json';
      const response = await send(`${base}${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': type },
        body: encoded ? new Uint8Array(await encoded.arrayBuffer()) : (body as string),
        signal: call.signal ?? null,
      });
      if (!response.ok) throw new HttpStatusError(response.status, response.headers, await response.text());
      return response;
    } catch (error) {
      throw errors.map(error, call.model, { signal: call.signal });
    }
  }

  async function images(call: MediaCall<ImageBody>, response: Response): Promise<ImagesResponse> {
    const answer = await readJson(call, response);
    if (!isPlainObject(answer) || !Array.isArray(answer.data)) {
      throw invalidResponse(errors.scope(call.model), 'an images answer without a "data" list');
    }
    return answer as unknown as ImagesResponse;
  }

  async function readJson(call: MediaCall<unknown>, response: Response): Promise<unknown> {
    try {
      return JSON.parse(await response.text());
    } catch (error) {
      throw errors.map(error, call.model, { signal: call.signal });
    }
  }

  const api: Required<MediaApi> = {
    async generateImage(call) {
      const body = imageBodyFor(quirks, call);
      return images(call, await post(call, '/images/generations', JSON.stringify({ model: call.model, ...body })));
    },
    async editImage(call) {
      const { image, mask, ...rest } = call.body;
      const form = formOf({ model: call.model, ...imageBodyFor(quirks, { ...call, body: rest }) });
      for (const file of image) form.append(image.length > 1 ? 'image[]' : 'image', blobOf(file), file.name);
      if (mask) form.append('mask', blobOf(mask), mask.name);
      return images(call, await post(call, '/images/edits', form));
    },
    async createSpeech(call) {
      const response = await post(call, '/audio/speech', JSON.stringify({ model: call.model, ...call.body }));
      const format = call.body.response_format ?? 'mp3';
      const audio = new Uint8Array(await response.arrayBuffer());
      const contentType = response.headers.get('content-type') ?? SPEECH_TYPES[format] ?? 'application/octet-stream';
      return { audio, format, contentType };
    },
    async transcribe(call) {
      const { file, timestamp_granularities: granularities, ...rest } = call.body;
      const form = formOf({ model: call.model, ...rest });
      for (const granularity of granularities ?? []) form.append('timestamp_granularities[]', granularity);
      form.append('file', blobOf(file), file.name);
      const response = await post(call, '/audio/transcriptions', form);
      if (rest.response_format !== 'json' && rest.response_format !== 'verbose_json') {
        return { text: await response.text() };
      }
      const json = await readJson(call, response);
      if (!isPlainObject(json) || typeof json.text !== 'string') {
        throw invalidResponse(errors.scope(call.model), 'a transcription without "text"');
      }
      return { json: json as { text: string } };
    },
  };
  return Object.fromEntries((quirks.media?.apis ?? []).map((name) => [name, api[name]])) as MediaApi;
}

function formOf(fields: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return form;
}

function blobOf(file: FileBody): Blob {
  return new Blob([file.data as Uint8Array<ArrayBuffer>], { type: file.type });
}

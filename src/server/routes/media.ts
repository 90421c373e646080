import type { Gateway } from '../../gateway.ts';
import type { ImageEditRequest, ImageRequest, SpeechRequest, TranscriptionRequest } from '../../media/media-types.ts';
import { wellFormed } from '../../records/record-text.ts';
import type { SwitchyardResponseInfo } from '../../types.ts';
import { allowedCallOptions } from '../call-options.ts';
import type { Reply } from '../exchange.ts';
import {
  type FormFields,
  fileFields,
  isMetadataField,
  metadataField,
  numberField,
  readFormBody,
} from '../read-form-body.ts';
import { readJsonBody } from '../read-json-body.ts';
import { HttpError, json } from '../responses.ts';
import type { Route } from '../router.ts';

/** OpenAI's largest audio upload; `serve --max-upload-bytes` sets the server's. */
export const DEFAULT_MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

/**
 * OpenAI's media APIs for every media model the gateway reaches: `POST /v1/images/generations` (JSON),
 * `/v1/images/edits` and `/v1/audio/transcriptions` (multipart, held to `maxUploadBytes`), `/v1/audio/speech` (the
 * audio's bytes). Routes rather than operations: their bodies are files, not JSON an MCP tool could carry. The key's
 * scope, agents, models and budgets apply as for chat; a binary or text answer carries its facts in headers.
 */
export function mediaRoutes(gateway: Gateway, limits: { maxBodyBytes: number; maxUploadBytes: number }): Route[] {
  return [
    {
      method: 'POST',
      path: /^\/v1\/images\/generations$/,
      auth: 'key',
      scope: 'chat',
      async handle({ request, access }) {
        const body = (await readJsonBody(request, limits.maxBodyBytes)) as ImageRequest;
        const result = await gateway.createImage(body, allowedCallOptions(request, access, body));
        return json(result, 200, factHeaders(result.switchyard));
      },
    },
    {
      method: 'POST',
      path: /^\/v1\/images\/edits$/,
      auth: 'key',
      scope: 'chat',
      async handle({ request, access }) {
        const fields = await readFormBody(request, limits.maxUploadBytes, limits.maxBodyBytes);
        const images = fileFields(fields, 'image');
        if (images.length === 0)
          throw new HttpError(400, '"image" is required: the image to edit.', { param: 'image' });
        const [mask] = fileFields(fields, 'mask');
        const body = {
          ...otherTextFields(fields, ['image', 'mask', 'n', 'output_compression', 'metadata']),
          ...numberFields(fields, ['n', 'output_compression']),
          image: images.length === 1 ? images[0]! : images,
          ...(mask ? { mask } : {}),
          ...metadataOf(fields),
        } as ImageEditRequest;
        const result = await gateway.editImage(body, allowedCallOptions(request, access, body));
        return json(result, 200, factHeaders(result.switchyard));
      },
    },
    {
      method: 'POST',
      path: /^\/v1\/audio\/speech$/,
      auth: 'key',
      scope: 'chat',
      async handle({ request, access }): Promise<Reply> {
        const body = (await readJsonBody(request, limits.maxBodyBytes)) as SpeechRequest;
        const result = await gateway.createSpeech(body, allowedCallOptions(request, access, body));
        const headers = { ...factHeaders(result.switchyard), 'content-type': result.content_type };
        return { status: 200, headers, body: result.audio };
      },
    },
    {
      method: 'POST',
      path: /^\/v1\/audio\/transcriptions$/,
      auth: 'key',
      scope: 'chat',
      async handle({ request, access }): Promise<Reply> {
        const fields = await readFormBody(request, limits.maxUploadBytes, limits.maxBodyBytes);
        const [file] = fileFields(fields, 'file');
        if (!file) throw new HttpError(400, '"file" is required: the audio to transcribe.', { param: 'file' });
        const body = {
          ...otherTextFields(fields, ['file', 'temperature', 'metadata']),
          ...numberFields(fields, ['temperature']),
          file,
          ...metadataOf(fields),
        } as TranscriptionRequest;
        const result = await gateway.createTranscription(body, allowedCallOptions(request, access, body));
        const headers = factHeaders(result.switchyard);
        if (result.content_type === 'application/json') {
          const { body: _body, content_type: _type, ...answer } = result;
          return json(answer, 200, headers);
        }
        return { status: 200, headers: { ...headers, 'content-type': result.content_type }, body: result.body };
      },
    },
  ];
}

/** The `switchyard` facts a binary or text answer cannot carry in its body (the call's record has them all). */
function factHeaders(info: SwitchyardResponseInfo): Record<string, string> {
  return {
    'x-switchyard-call-id': info.call_id,
    // A name the caller wrote (`<provider>/<any id>`): a header holds visible ASCII only, the rest percent-encoded.
    'x-switchyard-model': /^[\x20-\x7e]*$/.test(info.model) ? info.model : encodeURIComponent(wellFormed(info.model)),
    'x-switchyard-provider': info.provider,
    'x-switchyard-cost-usd': info.cost_usd === null ? 'unknown' : String(info.cost_usd),
  };
}

/**
 * Every text field but those named (read apart): passed on as sent, a repeated one (`include[]`) as a list, for the
 * API to take, or drop with a warning; never dropped here unsaid. A file where the API takes none is a 400.
 */
function otherTextFields(fields: FormFields, apart: string[]): Record<string, string | string[]> {
  const found: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of Object.entries(fields)) {
    if (apart.includes(name) || isMetadataField(name)) continue;
    const all = Array.isArray(value) ? value : [value];
    if (all.some((item) => typeof item !== 'string'))
      throw new HttpError(400, `"${name}" must be a text field: this API takes no such file.`, { param: name });
    found[name] = value as string | string[];
  }
  return found;
}

function numberFields(fields: FormFields, names: string[]): Record<string, number> {
  const found: Record<string, number> = {};
  for (const name of names) {
    const value = numberField(fields, name);
    if (value !== undefined) found[name] = value;
  }
  return found;
}

function metadataOf(fields: FormFields) {
  const metadata = metadataField(fields);
  return metadata ? { metadata } : {};
}

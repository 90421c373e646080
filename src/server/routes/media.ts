import type { Gateway } from '../../gateway.ts';
import type { ImageEditRequest, ImageRequest, SpeechRequest, TranscriptionRequest } from '../../media/media-types.ts';
import type { SwitchyardResponseInfo } from '../../types.ts';
import { allowedCallOptions } from '../call-options.ts';
import type { Reply } from '../exchange.ts';
import { fileFields, metadataField, numberField, readFormBody, textField } from '../read-form-body.ts';
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
        // Passed on for createImage's rule: a stream asked for is refused, `false` is what is done.
        const streamed = textFields(fields, ['stream', 'partial_images']);
        const body = {
          ...textFields(fields, ['model', 'prompt', 'size', 'quality', 'response_format', 'background', 'user']),
          ...textFields(fields, ['sensitive_data']),
          ...streamed,
          ...textFields(fields, ['output_format', 'input_fidelity']),
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
        const granularities = fields.timestamp_granularities;
        if (textField(fields, 'stream') === 'true')
          throw new HttpError(400, '"stream" is not supported: a transcription is answered whole.', {
            param: 'stream',
          });
        const body = {
          ...textFields(fields, ['model', 'language', 'prompt', 'response_format', 'sensitive_data']),
          ...numberFields(fields, ['temperature']),
          ...(granularities === undefined
            ? {}
            : { timestamp_granularities: [granularities].flat().filter((item) => typeof item === 'string') }),
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
    'x-switchyard-model': info.model,
    'x-switchyard-provider': info.provider,
    'x-switchyard-cost-usd': info.cost_usd === null ? 'unknown' : String(info.cost_usd),
  };
}

function textFields(fields: Parameters<typeof textField>[0], names: string[]): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of names) {
    const value = textField(fields, name);
    if (value !== undefined) found[name] = value;
  }
  return found;
}

function numberFields(fields: Parameters<typeof textField>[0], names: string[]): Record<string, number> {
  const found: Record<string, number> = {};
  for (const name of names) {
    const value = numberField(fields, name);
    if (value !== undefined) found[name] = value;
  }
  return found;
}

function metadataOf(fields: Parameters<typeof textField>[0]) {
  const metadata = metadataField(fields);
  return metadata ? { metadata } : {};
}

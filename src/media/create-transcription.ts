import type { CompletionOptions } from '../completion/resolve-request.ts';
import type { Services } from '../completion/services.ts';
import { InvalidRequestError } from '../errors.ts';
import { wavSeconds } from '../internal/wav.ts';
import type { ProviderTranscription, TranscriptionBody } from '../providers/media-api.ts';
import { mostTokensCost, transcriptionBill } from './media-cost.ts';
import type { TranscriptionRequest, TranscriptionResponse } from './media-types.ts';
import { checkBody, runMediaCall, textsOf } from './run-media-call.ts';
import { mediaFields, unsentFields } from './unsent-fields.ts';

/**
 * The budgets hold a transcription at this many bytes a second of audio (16 kbit/s, below any common speech
 * encoding), so a file's worst length is over- rather than under-estimated; a WAV file's header says its own.
 */
const LOWEST_BYTES_PER_SECOND = 2000;

/** `audio.transcriptions.create`: `{ text, … }` in the requested `response_format`, with the `switchyard` facts. */
export async function createTranscription(
  services: Services,
  request: TranscriptionRequest,
  options?: CompletionOptions,
): Promise<TranscriptionResponse> {
  // The body's other parts are read only once its checks passed (a refusal is thrown inside the call, recorded).
  const { body: checked, refused } = checkBody(() => transcriptionBody(request));
  const body = checked as TranscriptionBody;
  const asText = checked?.response_format === 'text';
  const fileSeconds = checked && wavSeconds(checked.file.data);
  const { value, info } = await runMediaCall<ProviderTranscription>(
    services,
    {
      kind: 'transcription',
      dialect: 'transcriptions',
      api: 'transcribe',
      request,
      refused,
      texts: textsOf(checked ? checked.prompt : request?.prompt),
      unsent: unsentFields(request, TRANSCRIPTION_FIELDS),
      worst: (candidate) => {
        const pricing = candidate.offering.pricing;
        if (pricing?.minute !== undefined) {
          const seconds = fileSeconds ?? body.file.data.byteLength / LOWEST_BYTES_PER_SECOND;
          return (Math.ceil(seconds) / 60) * pricing.minute;
        }
        return mostTokensCost(pricing, candidate.entry);
      },
      attempt: (api, call) =>
        api.transcribe!({
          model: call.model,
          body: {
            ...body,
            // Text is asked of the provider as json: the same text, with the length (or tokens) a bill needs, which
            // a text answer does not say; it is answered as text below.
            ...(asText ? { response_format: 'json' } : {}),
            ...(body.prompt === undefined ? {} : { prompt: call.texts[0]! }),
          },
          signal: call.signal,
          warn: call.warn,
        }),
      bill: (answer, candidate, warn) => {
        const usage = answer.json?.usage as Record<string, unknown> | undefined;
        let seconds = answer.seconds ?? numberOr(answer.json?.duration) ?? fileSeconds;
        if (usage === undefined && seconds === undefined) {
          // A text, SRT or VTT answer says no length: billed at the length the hold assumed, never \$0.
          seconds = body.file.data.byteLength / LOWEST_BYTES_PER_SECOND;
          warn({
            code: 'cost_estimated',
            message:
              `The provider said nothing of the audio's length: billed as ${Math.ceil(seconds)} s, its size at ` +
              '16 kbit/s (ask for json for the exact cost).',
          });
        }
        return transcriptionBill(candidate.offering.pricing, { usage, seconds });
      },
    },
    options,
  );
  if (asText) {
    // As the provider answers text: the transcript and a newline.
    const text = value.json ? `${value.json.text}\n` : (value.text ?? '');
    return { text, body: text, content_type: 'text/plain; charset=utf-8', model: info.model, switchyard: info };
  }
  const text = value.json?.text ?? value.text ?? '';
  const json = value.json !== undefined;
  return {
    ...(value.json ?? {}),
    text,
    body: json ? JSON.stringify(value.json) : (value.text ?? ''),
    content_type: json ? 'application/json' : 'text/plain; charset=utf-8',
    model: info.model,
    switchyard: info,
  };
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

const FORMATS = new Set(['json', 'text', 'srt', 'verbose_json', 'vtt']);

/** The fields a transcription body takes; `stream` only as false, what is done anyway. */
const TRANSCRIPTION_FIELDS = mediaFields([
  'file',
  'language',
  'prompt',
  'response_format',
  'temperature',
  'timestamp_granularities',
  'stream',
]);

function transcriptionBody(request: TranscriptionRequest): TranscriptionBody {
  const file = request?.file;
  if (!(file?.data instanceof Uint8Array) || file.data.byteLength === 0) {
    throw new InvalidRequestError('"file" must be a non-empty audio file.', 'file');
  }
  const streamed = (request as { stream?: unknown }).stream;
  if (streamed === true || streamed === 'true') {
    throw new InvalidRequestError('"stream" is not supported: a transcription is answered whole.', 'stream');
  }
  const format = request.response_format ?? 'json';
  if (!FORMATS.has(format)) {
    throw new InvalidRequestError(`"response_format" must be one of ${[...FORMATS].join(', ')}.`, 'response_format');
  }
  // One granularity is a list of one (a form field sent once, without `[]`).
  const asked = request.timestamp_granularities as unknown;
  const granularities = asked === undefined || Array.isArray(asked) ? asked : [asked];
  if (granularities?.some((item) => item !== 'word' && item !== 'segment')) {
    throw new InvalidRequestError(
      '"timestamp_granularities" holds "word" and "segment" only.',
      'timestamp_granularities',
    );
  }
  // Text, each: the prompt is guarded as the call's text (a list would pass the guard unmasked).
  for (const param of ['language', 'prompt'] as const) {
    const value = request[param];
    if (value !== undefined && typeof value !== 'string')
      throw new InvalidRequestError(`"${param}" must be a string.`, param);
  }
  const temperature = request.temperature;
  if (temperature !== undefined && (typeof temperature !== 'number' || !Number.isFinite(temperature)))
    throw new InvalidRequestError('"temperature" must be a number.', 'temperature');
  return {
    file: { data: file.data, name: file.name ?? 'audio.wav', type: file.type ?? 'application/octet-stream' },
    response_format: format,
    ...(request.language !== undefined ? { language: request.language } : {}),
    ...(request.prompt !== undefined ? { prompt: request.prompt } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(granularities === undefined ? {} : { timestamp_granularities: granularities }),
  };
}

import type { CompletionOptions } from '../completion/resolve-request.ts';
import type { Services } from '../completion/services.ts';
import { InvalidRequestError } from '../errors.ts';
import type { ProviderSpeech, SpeechBody } from '../providers/media-api.ts';
import { speechBill } from './media-cost.ts';
import type { SpeechRequest, SpeechResponse } from './media-types.ts';
import { checkBody, runMediaCall, textsOf } from './run-media-call.ts';
import { mediaFields, unsentFields } from './unsent-fields.ts';

/** `audio.speech.create`: the audio's bytes and media type, with the `switchyard` facts. */
export async function createSpeech(
  services: Services,
  request: SpeechRequest,
  options?: CompletionOptions,
): Promise<SpeechResponse> {
  // The body's other parts are read only once its checks passed (a refusal is thrown inside the call, recorded).
  const { body: checked, refused } = checkBody(() => speechBody(request));
  const body = checked as SpeechBody;
  const characters = checked?.input.length ?? 0;
  const { value, info } = await runMediaCall<ProviderSpeech>(
    services,
    {
      kind: 'speech',
      dialect: 'speech',
      api: 'createSpeech',
      request,
      refused,
      // The instructions are sent too: guarded (and recorded) as the input is.
      texts: checked ? textsOf(body.input, body.instructions) : textsOf(request?.input, request?.instructions),
      unsent: unsentFields(request, SPEECH_FIELDS),
      worst: (candidate) => speechBill(candidate.offering.pricing, characters).usd?.input ?? null,
      attempt: (api, call) =>
        api.createSpeech!({
          model: call.model,
          body: {
            ...body,
            input: call.texts[0]!,
            ...(body.instructions === undefined ? {} : { instructions: call.texts[1]! }),
          },
          signal: call.signal,
          warn: call.warn,
        }),
      bill: (speech, candidate) => speechBill(candidate.offering.pricing, characters, speech.tokens),
    },
    options,
  );
  return {
    audio: value.audio,
    content_type: value.contentType,
    format: value.format,
    model: info.model,
    switchyard: info,
  };
}

const FORMATS = new Set(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']);

/** The fields a speech body takes; `stream_format` only as `audio`, what is answered anyway. */
const SPEECH_FIELDS = mediaFields(['input', 'voice', 'instructions', 'response_format', 'speed', 'stream_format']);

function speechBody(request: SpeechRequest): SpeechBody {
  if (typeof request?.input !== 'string' || request.input.length === 0) {
    throw new InvalidRequestError('"input" must be a non-empty string.', 'input');
  }
  if (request.input.length > 4096) throw new InvalidRequestError('"input" is at most 4096 characters.', 'input');
  const voice = request.voice as SpeechBody['voice'] | undefined;
  if (typeof voice !== 'string' && typeof (voice as { id?: unknown } | undefined)?.id !== 'string') {
    throw new InvalidRequestError('"voice" is required: a voice name, or { id }.', 'voice');
  }
  const format = request.response_format ?? 'mp3';
  if (!FORMATS.has(format)) {
    throw new InvalidRequestError(`"response_format" must be one of ${[...FORMATS].join(', ')}.`, 'response_format');
  }
  if (request.instructions !== undefined && typeof request.instructions !== 'string') {
    throw new InvalidRequestError('"instructions" must be a string.', 'instructions');
  }
  const streamed = (request as { stream_format?: unknown }).stream_format;
  if (streamed !== undefined && streamed !== 'audio') {
    throw new InvalidRequestError('"stream_format" must be "audio": speech is answered as its bytes.', 'stream_format');
  }
  const speed = request.speed;
  if (speed !== undefined && !(typeof speed === 'number' && speed >= 0.25 && speed <= 4)) {
    throw new InvalidRequestError('"speed" must be 0.25 to 4.', 'speed');
  }
  return {
    input: request.input,
    voice: voice!,
    response_format: format,
    ...(request.instructions !== undefined ? { instructions: request.instructions } : {}),
    ...(speed !== undefined ? { speed } : {}),
  };
}

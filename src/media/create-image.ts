import type { ImagesResponse } from 'openai/resources/images';
import type { CompletionOptions } from '../completion/resolve-request.ts';
import type { Services } from '../completion/services.ts';
import { InvalidRequestError } from '../errors.ts';
import type { FileBody, ImageBody } from '../providers/media-api.ts';
import type { MediaCandidate } from './media-catalog.ts';
import { dearestImage, imageBill } from './media-cost.ts';
import type { ImageEditRequest, ImageRequest, ImageResponse, MediaFile } from './media-types.ts';
import { checkBody, runMediaCall, textsOf } from './run-media-call.ts';

/** `images.generate`: OpenAI's body in, its `ImagesResponse` out, with the `switchyard` facts. */
export async function createImage(
  services: Services,
  request: ImageRequest,
  options?: CompletionOptions,
): Promise<ImageResponse> {
  // The body's other parts are read only once its checks passed (a refusal is thrown inside the call, recorded).
  const { body: checked, refused } = checkBody(() => imageBody(request));
  const body = checked as ImageBody;
  const { value, info } = await runMediaCall<ImagesResponse>(
    services,
    {
      kind: 'image',
      dialect: 'images',
      api: 'generateImage',
      request,
      refused,
      texts: textsOf(checked ? body.prompt : request?.prompt),
      worst: (candidate) => worstImages(candidate, body),
      attempt: (api, call) =>
        api.generateImage!({
          model: call.model,
          body: { ...body, prompt: call.texts[0]! },
          signal: call.signal,
          warn: call.warn,
        }),
      bill: (answer, candidate, warn) => imageBill(candidate.offering.pricing, answer, body, warn),
    },
    options,
  );
  return { ...value, model: info.model, switchyard: info };
}

/** `images.edit`: the images (and mask) as bytes, the rest as for `createImage`. */
export async function editImage(
  services: Services,
  request: ImageEditRequest,
  options?: CompletionOptions,
): Promise<ImageResponse> {
  const { body: checked, refused } = checkBody(() => {
    const body = imageBody(request as unknown as ImageRequest);
    const images = (Array.isArray(request?.image) ? request.image : [request?.image]).map((file, index) =>
      fileBody(file, `image[${index}]`, 'image.png', 'image/png'),
    );
    const mask = request.mask ? fileBody(request.mask, 'mask', 'mask.png', 'image/png') : undefined;
    return { body, images, mask };
  });
  // Read only once the checks passed (a refusal is thrown inside the call, recorded).
  const { body, images, mask } = (checked ?? {}) as NonNullable<typeof checked>;
  const { value, info } = await runMediaCall<ImagesResponse>(
    services,
    {
      kind: 'image',
      dialect: 'images',
      api: 'editImage',
      request,
      refused,
      texts: textsOf(checked ? body.prompt : request?.prompt),
      worst: (candidate) => worstImages(candidate, body),
      attempt: (api, call) =>
        api.editImage!({
          model: call.model,
          body: { ...body, prompt: call.texts[0]!, image: images, ...(mask ? { mask } : {}) },
          signal: call.signal,
          warn: call.warn,
        }),
      bill: (answer, candidate, warn) => imageBill(candidate.offering.pricing, answer, body, warn),
    },
    options,
  );
  return { ...value, model: info.model, switchyard: info };
}

/** The body every provider starts from: the caller's parameters without `model` and `metadata`, checked. */
function imageBody(request: ImageRequest): ImageBody {
  if (typeof request?.prompt !== 'string' || request.prompt.length === 0) {
    throw new InvalidRequestError('"prompt" must be a non-empty string.', 'prompt');
  }
  const {
    model: _model,
    metadata: _metadata,
    fallbacks: _fallbacks,
    // The gateway's to obey (runMediaCall), not a provider's parameter.
    sensitive_data: _sensitiveData,
    ...rest
  } = request as ImageRequest & { image?: unknown; mask?: unknown; sensitive_data?: unknown };
  // A stream asked for is refused; `stream: false` and no partial images are what is done anyway.
  const asked = rest as { stream?: unknown; partial_images?: unknown };
  if (asked.stream === true || asked.stream === 'true')
    throw new InvalidRequestError('"stream" is not supported: images are answered whole.', 'stream');
  if (Number(asked.partial_images ?? 0) !== 0)
    throw new InvalidRequestError('"partial_images" is not supported: images are answered whole.', 'partial_images');
  delete (rest as { stream?: unknown }).stream;
  delete (rest as { partial_images?: unknown }).partial_images;
  delete (rest as { image?: unknown }).image;
  delete (rest as { mask?: unknown }).mask;
  const n = rest.n ?? 1;
  if (!Number.isInteger(n) || n < 1 || n > 10) throw new InvalidRequestError('"n" must be 1 to 10.', 'n');
  return rest as ImageBody;
}

/**
 * `n` images at the dearest row that fits the size and quality asked (the dearest of all when they are unsaid); for a
 * model billed in tokens alone, `n` images' output tokens and the prompt's (at most its UTF-8 bytes) at their prices.
 */
function worstImages(candidate: MediaCandidate, body: ImageBody): number | null {
  const pricing = candidate.offering.pricing;
  const perImage = candidate.entry?.output_tokens_per_image;
  if (!pricing?.per_image && pricing?.tokens && perImage !== undefined) {
    const prompt = new TextEncoder().encode(body.prompt).byteLength * (pricing.tokens.text_input ?? 0);
    return ((body.n ?? 1) * (perImage * pricing.tokens.output + prompt)) / 1e6;
  }
  if (!pricing?.per_image) return null;
  const row = body.quality && body.size ? pricing.per_image[body.quality]?.[body.size] : undefined;
  return (body.n ?? 1) * (row ?? dearestImage(pricing));
}

function fileBody(file: MediaFile | undefined, param: string, name: string, type: string): FileBody {
  if (!(file?.data instanceof Uint8Array) || file.data.byteLength === 0) {
    throw new InvalidRequestError(`"${param}" must be a non-empty file.`, param);
  }
  return { data: file.data, name: file.name ?? name, type: file.type ?? type };
}

import { InvalidRequestError } from '../../errors.ts';
import { parseImageSize } from '../image-size.ts';
import type { ImageBody, MediaCall } from '../media-api.ts';

/** The Amazon image models Bedrock's InvokeModel serves with the `TEXT_IMAGE` task: one body shape for both. */
const FAMILIES = { 'amazon.nova-canvas': 'Nova Canvas', 'amazon.titan-image-generator': 'Titan Image Generator' };

/** The sizes Titan Image Generator makes (AWS's Titan Image Generator parameters page); another is sent as nearest. */
const TITAN_SIZES: ReadonlyArray<readonly [number, number]> = [
  '1024x1024 768x768 512x512 768x1152 384x576 1152x768 576x384 768x1280 384x640 1280x768 640x384 896x1152 448x576',
  '1152x896 576x448 768x1408 384x704 1408x768 704x384 640x1408 320x704 1408x640 704x320 1152x640 1173x640',
]
  .join(' ')
  .split(' ')
  .map((size) => size.split('x').map(Number) as [number, number]);

/** Nova Canvas: each side 320 to 4096 pixels and a multiple of 16, at most 4,194,304 pixels, ratio within 1:4–4:1. */
const NOVA = { min: 320, max: 4096, step: 16, pixels: 4_194_304, ratio: 4 };

/** OpenAI's qualities as Bedrock's two (`standard`, `premium`); `auto` leaves the model its default. */
const QUALITIES: Record<string, string> = {
  standard: 'standard',
  premium: 'premium',
  hd: 'premium',
  high: 'premium',
  medium: 'standard',
  low: 'standard',
};

/** Parameters of other image APIs Bedrock's models take under their own names (Together's and Stability's). */
const EXTRAS: Record<string, 'seed' | 'cfgScale' | 'negativeText'> = {
  seed: 'seed',
  cfg_scale: 'cfgScale',
  negative_prompt: 'negativeText',
};

/** The family of a Bedrock image model id (a cross-region prefix such as `us.` allowed), or `undefined`. */
export function bedrockImageFamily(model: string): string | undefined {
  const id = model.replace(/^(us|eu|apac|global)\./, '');
  return Object.entries(FAMILIES).find(([prefix]) => id.startsWith(prefix))?.[1];
}

/**
 * An OpenAI images body as the InvokeModel body of Nova Canvas and Titan Image Generator: `prompt` → `textToImageParams
 * .text`, `n` → `numberOfImages` (at most 5, else a 400), `size` → `width`/`height` (the nearest size the model makes,
 * with a warning when not exact), `quality` → `standard` or `premium`; the images come back as base64 whatever
 * `response_format` asks. The rest is dropped with a warning.
 */
export function toBedrockImageRequest(call: MediaCall<ImageBody>): Record<string, unknown> {
  const family = bedrockImageFamily(call.model);
  if (!family) {
    throw new InvalidRequestError(
      `Bedrock's images API here serves Amazon Nova Canvas and Titan Image Generator (InvokeModel, TEXT_IMAGE); ` +
        `${call.model} is neither.`,
      'model',
      'model_not_supported',
    );
  }
  const n = call.body.n ?? 1;
  if (n > 5) throw new InvalidRequestError(`${family} makes at most 5 images a request; "n" was ${n}.`, 'n');
  const text: Record<string, unknown> = { text: call.body.prompt };
  const config: Record<string, unknown> = { numberOfImages: n };
  const converted = (param: string, message: string) => call.warn({ code: 'converted_parameter', param, message });
  for (const [name, value] of Object.entries(call.body)) {
    if (name === 'prompt' || name === 'n' || value === undefined || value === null) continue;
    if (name === 'size') {
      const asked = parseImageSize(value);
      if (!asked) continue;
      const [width, height] = family === 'Nova Canvas' ? novaSize(asked) : nearestTitanSize(asked);
      Object.assign(config, { width, height });
      if (width !== asked.width || height !== asked.height)
        converted('size', `${family} does not make ${value} images: sent as ${width}x${height}, the nearest it makes.`);
      continue;
    }
    if (name === 'quality' && (value === 'auto' || QUALITIES[String(value)])) {
      const quality = QUALITIES[String(value)];
      if (!quality) continue;
      config.quality = quality;
      if (quality !== value)
        converted('quality', `${family} has standard and premium: quality ${value} was sent as ${quality}.`);
      continue;
    }
    if (name === 'response_format') {
      if (value === 'url') converted(name, `${family} answers images as base64: they come as b64_json, not URLs.`);
      continue;
    }
    const extra = EXTRAS[name];
    if (extra === 'negativeText' && typeof value === 'string') text.negativeText = value;
    else if (extra && extra !== 'negativeText' && typeof value === 'number') config[extra] = value;
    else
      call.warn({
        code: 'unsupported_parameter',
        param: name,
        message: `${family} takes no ${name === 'quality' ? `quality "${value}"` : `"${name}"`}: it was dropped.`,
      });
  }
  return { taskType: 'TEXT_IMAGE', textToImageParams: text, imageGenerationConfig: config };
}

/** The size Nova Canvas makes nearest the one asked: the ratio held within 1:4–4:1, the pixels within its limit. */
function novaSize({ width, height }: { width: number; height: number }): [number, number] {
  let w = Math.min(width, height * NOVA.ratio);
  let h = Math.min(height, w * NOVA.ratio);
  const scale = Math.min(1, Math.sqrt(NOVA.pixels / (w * h)));
  w *= scale;
  h *= scale;
  // Rounded down when shrunk to fit the pixel limit, so that the rounding cannot push it back over.
  const round = scale < 1 ? Math.floor : Math.round;
  const side = (x: number) => Math.min(NOVA.max, Math.max(NOVA.min, round(x / NOVA.step) * NOVA.step));
  return [side(w), side(h)];
}

/** Titan's size nearest the one asked: the aspect ratio first, then the area. */
function nearestTitanSize({ width, height }: { width: number; height: number }): readonly [number, number] {
  const distance = ([w, h]: readonly [number, number]) =>
    4 * Math.abs(Math.log(w / h / (width / height))) + Math.abs(Math.log((w * h) / (width * height)));
  return TITAN_SIZES.reduce((best, size) => (distance(size) < distance(best) ? size : best));
}

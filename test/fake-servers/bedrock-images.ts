import { encodePng } from '../../src/internal/png.ts';

/** A 2×2 PNG, decodable: every image the fake Bedrock paints. */
const PNG = Buffer.from(encodePng(2, 2, (x, y) => [x * 255, 128, y * 255])).toString('base64');

/** The sizes Titan Image Generator takes; Nova Canvas takes any within its rules. */
const TITAN = new Set(
  (
    '1024x1024 768x768 512x512 768x1152 384x576 1152x768 576x384 768x1280 384x640 1280x768 640x384 896x1152 448x576 ' +
    '1152x896 576x448 768x1408 384x704 1408x768 704x384 640x1408 320x704 1408x640 704x320 1152x640 1173x640'
  ).split(' '),
);

/**
 * Bedrock's InvokeModel for Amazon's image models (`POST /model/<id>/invoke`, TEXT_IMAGE): `{ images: [base64…] }`,
 * or the ValidationException Bedrock answers a body the model refuses with (the message, or `undefined` when valid).
 */
export function invokeImages(
  modelId: string,
  body: Record<string, any>,
  images: string[] | undefined,
): { answer: { images: string[] } } | { invalid: string } {
  if (!/amazon\.(nova-canvas|titan-image-generator)/.test(modelId))
    return { invalid: `The provided model identifier is invalid for InvokeModel images: ${modelId}` };
  if (body.taskType !== 'TEXT_IMAGE') return { invalid: 'taskType: must be TEXT_IMAGE here' };
  const text = body.textToImageParams?.text;
  if (typeof text !== 'string' || text.length === 0) return { invalid: 'textToImageParams.text: required' };
  const config = body.imageGenerationConfig ?? {};
  const count = config.numberOfImages ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > 5) return { invalid: 'numberOfImages: range 1..5' };
  if (config.quality !== undefined && !['standard', 'premium'].includes(config.quality))
    return { invalid: `quality: ${config.quality} is not one of standard, premium` };
  const invalidSize = sizeRefused(modelId, config.width, config.height);
  if (invalidSize) return { invalid: invalidSize };
  for (const field of Object.keys(config)) {
    if (!['numberOfImages', 'quality', 'width', 'height', 'cfgScale', 'seed'].includes(field))
      return { invalid: `extraneous key [${field}] is not permitted` };
  }
  return { answer: { images: images ?? Array.from({ length: count }, () => PNG) } };
}

function sizeRefused(modelId: string, width: unknown, height: unknown): string | undefined {
  if (width === undefined && height === undefined) return undefined;
  if (typeof width !== 'number' || typeof height !== 'number') return 'width and height: both integers';
  if (/titan/.test(modelId)) return TITAN.has(`${width}x${height}`) ? undefined : `${width}x${height}: not supported`;
  const sides = [width, height].every((side) => side >= 320 && side <= 4096 && side % 16 === 0);
  const ratio = Math.max(width / height, height / width);
  if (!sides || ratio > 4 || width * height > 4_194_304) return `${width}x${height}: outside Nova Canvas's sizes`;
  return undefined;
}

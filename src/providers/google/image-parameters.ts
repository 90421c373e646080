import type { ImageBody, MediaCall } from '../media-api.ts';

/** The aspect ratios Imagen generates. */
const RATIOS: ReadonlyArray<readonly [string, number]> = [
  ['1:1', 1],
  ['3:4', 3 / 4],
  ['4:3', 4 / 3],
  ['9:16', 9 / 16],
  ['16:9', 16 / 9],
];

/**
 * Imagen's `parameters` for an OpenAI images body: `n` → `sampleCount`, `size` → the nearest `aspectRatio` (a
 * conversion, said in a warning when the ratio is not exact), the rest dropped with a warning.
 */
export function imagenParameters(call: MediaCall<ImageBody>): Record<string, unknown> {
  const parameters: Record<string, unknown> = { sampleCount: call.body.n ?? 1 };
  for (const [name, value] of Object.entries(call.body)) {
    if (name === 'prompt' || name === 'n' || value == null) continue;
    if (name === 'response_format' && value === 'b64_json') continue;
    const size = name === 'size' ? /^(\d+)x(\d+)$/.exec(String(value)) : null;
    if (size) {
      const wanted = Number(size[1]) / Number(size[2]);
      const [ratio, exact] = RATIOS.reduce((best, candidate) =>
        Math.abs(candidate[1] - wanted) < Math.abs(best[1] - wanted) ? candidate : best,
      );
      parameters.aspectRatio = ratio;
      if (Math.abs(exact - wanted) > 1e-6) {
        call.warn({
          code: 'converted_parameter',
          param: 'size',
          message: `Imagen makes images in aspect ratios, not sizes: size ${value} was sent as aspectRatio ${ratio}.`,
        });
      }
      continue;
    }
    call.warn({
      code: 'unsupported_parameter',
      param: name,
      message: `Imagen takes no "${name}" (it answers base64 images at its own size): it was dropped.`,
    });
  }
  return parameters;
}

/**
 * What Gemini's image models take of an OpenAI images body in `generateContent`: the prompt, an edit's images and
 * `n` (as that many requests); the rest dropped with a warning (a mask too: the model edits as the prompt says).
 */
export function geminiImageParameters(call: MediaCall<ImageBody>): void {
  for (const name of Object.keys(call.body)) {
    const value = call.body[name];
    if (['prompt', 'n', 'image'].includes(name) || value == null) continue;
    if (name === 'response_format') {
      if (value !== 'b64_json')
        call.warn({
          code: 'converted_parameter',
          param: name,
          message: `Gemini's image models answer image bytes: b64_json came back, not ${JSON.stringify(value)}.`,
        });
      continue;
    }
    call.warn({
      code: 'unsupported_parameter',
      param: name,
      message: `Gemini's image models take no "${name}" in generateContent: it was dropped.`,
    });
  }
}

/** The conversion of an images body for the model: Imagen's parameters, or Gemini's warnings. */
export function imageParametersFor(call: MediaCall<ImageBody>): Record<string, unknown> | undefined {
  if (call.model.startsWith('imagen')) return imagenParameters(call);
  geminiImageParameters(call);
  return undefined;
}

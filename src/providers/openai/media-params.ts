import type { ImageBody, MediaCall } from '../media-api.ts';
import type { OpenAIFamilyQuirks } from './family.ts';

/**
 * An images body as this provider takes it: OpenAI's as it is; another provider's with the parameters it names
 * otherwise converted (`size` → `width`/`height`) and those it has not dropped, each with a warning.
 */
export function imageBodyFor(quirks: OpenAIFamilyQuirks, call: MediaCall<ImageBody>): Record<string, unknown> {
  const taken = quirks.media?.imageParams;
  if (!taken) return { ...call.body };
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(call.body)) {
    if (value === undefined || value === null) continue;
    if (name === 'size' && quirks.media?.sizeAsWidthHeight) {
      const match = /^(\d+)x(\d+)$/.exec(String(value));
      if (match) {
        body.width = Number(match[1]);
        body.height = Number(match[2]);
        call.warn({
          code: 'converted_parameter',
          param: 'size',
          message:
            `${quirks.name} takes width and height: size ${value} was sent as ` +
            `width ${match[1]}, height ${match[2]}.`,
        });
        continue;
      }
    }
    if (taken.includes(name)) {
      body[name] = value;
      continue;
    }
    call.warn({
      code: 'unsupported_parameter',
      param: name,
      message: `${quirks.name}'s images API does not take "${name}": it was dropped.`,
    });
  }
  return body;
}

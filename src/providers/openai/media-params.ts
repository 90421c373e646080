import { nearestAspectRatio, parseImageSize } from '../image-size.ts';
import type { ImageBody, MediaCall } from '../media-api.ts';
import type { OpenAIFamilyQuirks } from './family.ts';

/**
 * An images body as this provider takes it: OpenAI's as it is; another provider's with the parameters it names
 * otherwise converted (`size` → `width`/`height`, or → `aspect_ratio` and `resolution`), values it names otherwise
 * renamed, and the parameters (or values) it has not dropped, each with a warning.
 */
export function imageBodyFor(quirks: OpenAIFamilyQuirks, call: MediaCall<ImageBody>): Record<string, unknown> {
  const media = quirks.media;
  const taken = media?.imageParams;
  if (!media || !taken) return { ...call.body };
  const body: Record<string, unknown> = {};
  const drop = (name: string, what: string) =>
    call.warn({
      code: 'unsupported_parameter',
      param: name,
      message: `${quirks.name}'s images API does not take ${what}: it was dropped.`,
    });
  for (const [name, value] of Object.entries(call.body)) {
    if (value === undefined || value === null) continue;
    if (name === 'size' && media.sizeAs) {
      const size = parseImageSize(value);
      // `auto` (or a size it cannot read) leaves the provider its own default, as OpenAI's `auto` does.
      if (!size) continue;
      const sent = sizeFields(media, size);
      Object.assign(body, sent);
      const described = Object.entries(sent)
        .map(([field, given]) => `${field} ${given}`)
        .join(', ');
      call.warn({
        code: 'converted_parameter',
        param: 'size',
        message: `${quirks.name} takes ${Object.keys(sent).join(' and ')}: size ${value} was sent as ${described}.`,
      });
      continue;
    }
    if (!taken.includes(name)) {
      drop(name, `"${name}"`);
      continue;
    }
    const renamed = media.renamedValues?.[name]?.[String(value)];
    const allowed = media.imageValues?.[name];
    if (renamed === undefined && allowed && !allowed.includes(String(value))) {
      drop(name, `${name} "${value}" (only ${allowed.join(', ')})`);
      continue;
    }
    body[name] = renamed ?? value;
  }
  return body;
}

/** `size` as the fields the provider takes instead. */
function sizeFields(
  media: NonNullable<OpenAIFamilyQuirks['media']>,
  { width, height }: { width: number; height: number },
): Record<string, string | number> {
  if (media.sizeAs === 'width_height') return { width, height };
  // Resolutions name the longer side: 1k about 1024 pixels, 2k about 2048.
  const resolution = Math.max(width, height) >= 1536 ? '2k' : '1k';
  return { aspect_ratio: nearestAspectRatio(width, height, media.aspectRatios ?? ['1:1']), resolution };
}

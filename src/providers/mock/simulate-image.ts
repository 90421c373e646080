import { toBase64 } from '../../internal/bytes.ts';
import { encodePng } from '../../internal/png.ts';
import { sha256 } from '../../internal/sha256.ts';
import type { CompletionImage } from '../../types.ts';
import { readTurn } from './conversation.ts';
import type { MockRequest } from './simulator.ts';

/** Loaded on the first image asked for (`await import`): the PNG encoder stays out of the bundle until then. */

/** The simulator's pictures are this many pixels a side: small enough for a test, big enough to be seen. */
const SIDE = 64;

/**
 * A real, decodable PNG for the request, the same for the same prompt: a gradient between two colours taken from the
 * prompt's hash, as a data URL in the form `message.images` has.
 */
export function simulateImage(request: MockRequest): CompletionImage {
  const hash = sha256(`${request.model}\n${readTurn(request.body).request}`);
  const from = [hash[0]!, hash[1]!, hash[2]!] as const;
  const to = [hash[3]!, hash[4]!, hash[5]!] as const;
  const mix = (a: number, b: number, at: number) => Math.round(a + ((b - a) * at) / (SIDE - 1));
  const png = encodePng(SIDE, SIDE, (x, y) => [mix(from[0], to[0], x), mix(from[1], to[1], y), mix(from[2], to[2], x)]);
  return { type: 'image_url', image_url: { url: `data:image/png;base64,${toBase64(png)}` } };
}

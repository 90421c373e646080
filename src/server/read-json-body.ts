import type { ServerRequest } from './exchange.ts';
import { HttpError } from './responses.ts';

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The request body parsed as JSON: 413 past `maxBytes` (see `ServerRequest.body`), 400 when empty or not JSON. */
export async function readJsonBody(request: ServerRequest, maxBytes: number): Promise<unknown> {
  const bytes = await request.body(maxBytes);
  // A view, not Buffer.from(bytes): that would copy the whole body once more.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (text.trim() === '')
      throw new HttpError(400, 'The request body is empty: send a JSON object.', { code: 'invalid_json' });
    throw new HttpError(400, `The request body is not valid JSON: ${(error as Error).message}.`, {
      code: 'invalid_json',
    });
  }
}

/** The 413 for a body over the limit: thrown on a declared `Content-Length` before reading, or mid-upload. */
export function bodyTooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `The request body is larger than ${maxBytes} bytes.`, { code: 'request_too_large' });
}

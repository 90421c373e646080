import { HttpError } from './responses.ts';

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The request body parsed as JSON. A declared `Content-Length` over `maxBytes` is refused before reading; a body
 * that grows past it while streaming (chunked uploads) is refused as soon as it does, without buffering the rest.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw new HttpError(400, 'The request body is empty: send a JSON object.', { code: 'invalid_json' });
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpError(400, `The request body is not valid JSON: ${(error as Error).message}.`, { code: 'invalid_json' });
  }
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `The request body is larger than ${maxBytes} bytes.`, { code: 'request_too_large' });
}

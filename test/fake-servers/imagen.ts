import type { ServerResponse } from 'node:http';
import { encodePng } from '../../src/internal/png.ts';
import type { GeminiReply } from './gemini-server.ts';

/** A 3×2 PNG: each of Imagen's predictions. */
const PNG = Buffer.from(encodePng(3, 2, (x) => [x * 100, 50, 200])).toString('base64');

/**
 * Imagen's `:predict` wire format: `{ instances: [{ prompt }], parameters: { sampleCount, aspectRatio, … } }` in,
 * `{ predictions: [{ bytesBase64Encoded, mimeType }] }` out, one prediction per sample; Google's errors as for
 * generateContent.
 */
export function predict(
  response: ServerResponse,
  body: Record<string, any>,
  reply: GeminiReply | undefined,
  sendError: (response: ServerResponse, error: NonNullable<GeminiReply['error']>) => void,
): void {
  if (reply?.error) {
    sendError(response, reply.error);
    return;
  }
  if (typeof body.instances?.[0]?.prompt !== 'string') {
    sendError(response, { status: 400, googleStatus: 'INVALID_ARGUMENT', message: 'instances[0].prompt' });
    return;
  }
  const count = Number(body.parameters?.sampleCount ?? 1);
  const predictions = Array.from({ length: count }, () => ({ bytesBase64Encoded: PNG, mimeType: 'image/png' }));
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ predictions }));
}

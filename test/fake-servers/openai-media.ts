import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodePng } from '../../src/internal/png.ts';
import type { RecordedRequest } from './http.ts';
import type { FakeReply } from './openai-server.ts';

/** What the fake's media answers can be scripted with (`FakeReply.media`), beside `error` and `reset`. */
export interface FakeMediaReply {
  /** A transcription's text (default: "fake transcript of <bytes> bytes"). */
  text?: string;
  /** The usage object of an images or transcription answer, as the provider sends it (default per model). */
  usage?: Record<string, unknown> | null;
}

/** A 2×2 PNG, decodable: the fake's every image. */
const PNG = Buffer.from(encodePng(2, 2, (x, y) => [x * 255, y * 255, 128])).toString('base64');

/**
 * OpenAI's media wire formats: `/images/generations` (JSON in and out), `/images/edits` and `/audio/transcriptions`
 * (multipart in), `/audio/speech` (JSON in, the audio's bytes out). Multipart bodies are read with the web `FormData`
 * parser; the request is recorded with its fields and, for each file, its name, type and size.
 */
export async function answerMedia(
  request: IncomingMessage,
  response: ServerResponse,
  recorded: RecordedRequest,
  raw: Buffer,
  reply: FakeReply | undefined,
): Promise<void> {
  if (request.headers['content-type']?.startsWith('multipart/')) recorded.body = await formFields(request, raw);
  const body = recorded.body;
  if (reply?.reset) return void request.socket.destroy();
  if (reply?.error) {
    const { status, message, type = 'invalid_request_error', param = null, code = null, headers = {} } = reply.error;
    return json(response, status, { error: { message, type, param, code } }, headers);
  }
  const path = request.url ?? '';
  if (path.endsWith('/images/generations') || path.endsWith('/images/edits')) {
    const n = Number(body.n ?? 1);
    const gptImage = String(body.model).startsWith('gpt-image');
    const data = Array.from({ length: n }, () =>
      // Together asks for base64 as `base64`; the answer's field is `b64_json` all the same.
      body.response_format === 'url' ? { url: 'https://images.example/fake.png' } : { b64_json: PNG },
    );
    const edits = path.endsWith('/edits');
    const usage =
      reply?.media?.usage !== undefined
        ? reply.media.usage
        : gptImage
          ? {
              input_tokens: 50 + (edits ? 300 : 0),
              input_tokens_details: { text_tokens: 50, image_tokens: edits ? 300 : 0 },
              output_tokens: 1056 * n,
              total_tokens: 50 + (edits ? 300 : 0) + 1056 * n,
            }
          : undefined;
    const facts = gptImage ? { size: body.size ?? '1024x1024', quality: body.quality ?? 'medium' } : {};
    return json(response, 200, { created: 1_760_000_000, data, ...facts, ...(usage ? { usage } : {}) });
  }
  if (path.endsWith('/audio/speech')) {
    const format = body.response_format ?? 'mp3';
    const type = format === 'mp3' ? 'audio/mpeg' : format === 'wav' ? 'audio/wav' : `audio/${format}`;
    response.writeHead(200, { 'content-type': type });
    return void response.end(Buffer.from(`fake ${format} audio of "${body.input}"`));
  }
  if (path.endsWith('/audio/transcriptions')) {
    const file = body.file as { size: number } | undefined;
    const text = reply?.media?.text ?? `fake transcript of ${file?.size ?? 0} bytes`;
    const format = body.response_format ?? 'json';
    if (format === 'text') {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      return void response.end(`${text}\n`);
    }
    const tokens = String(body.model).startsWith('gpt-4o');
    const usage =
      reply?.media?.usage !== undefined
        ? reply.media.usage
        : tokens
          ? {
              type: 'tokens',
              input_tokens: 120,
              input_token_details: { audio_tokens: 100, text_tokens: 20 },
              output_tokens: 30,
              total_tokens: 150,
            }
          : { type: 'duration', seconds: 42 };
    const verbose = format === 'verbose_json' ? { task: 'transcribe', language: 'english', duration: 42 } : {};
    return json(response, 200, { ...verbose, text, ...(usage ? { usage } : {}) });
  }
  json(response, 404, { error: { message: `Unknown path ${path}`, type: 'invalid_request_error', param: null } });
}

async function formFields(request: IncomingMessage, raw: Buffer): Promise<Record<string, any>> {
  const form = await new Response(raw, { headers: { 'content-type': request.headers['content-type']! } }).formData();
  const fields: Record<string, any> = {};
  for (const [name, value] of form.entries()) {
    const field =
      typeof value === 'string'
        ? value
        : { name: value.name, type: value.type, size: value.size, bytes: Buffer.from(await value.arrayBuffer()) };
    if (name.endsWith('[]')) (fields[name.slice(0, -2)] ??= []).push(field);
    else fields[name] = field;
  }
  return fields;
}

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { speechReply } from './gemini-speech.ts';
import { sendJSON as sendJSONWith, startFakeHttpServer, withinLimits } from './http.ts';
import { predict } from './imagen.ts';

/**
 * A fake Gemini API server speaking the generateContent wire format: `POST
 * /v1beta/models/{model}:generateContent` answers a JSON `GenerateContentResponse`, `:streamGenerateContent?alt=sse`
 * answers `data: {GenerateContentResponse}` events separated by CRLF CRLF (no `[DONE]`, usage on the last chunk),
 * errors carry Google's body with ErrorInfo / RetryInfo details. Tests drive it through the real `@google/genai` SDK.
 */

/** A part exactly as it travels on the wire (`text`, `thought`, `thoughtSignature`, `functionCall`, …). */
export type WirePart = Record<string, unknown>;

export interface GeminiReply {
  /** Parts of the (first) candidate; a stream sends text parts in five-character pieces, other parts whole. */
  parts?: WirePart[];
  /** Shorthand for `parts: [{ text }]`. */
  text?: string;
  /** Default `STOP`; `null` leaves it out. */
  finishReason?: string | null;
  /** Further candidates (for `candidateCount`), each with its own parts and finish reason. */
  extraCandidates?: Array<{ parts: WirePart[]; finishReason?: string }>;
  /** Raw `usageMetadata` of the reply (the last chunk of a stream), `candidatesTokensDetails` too. */
  usage?: Record<string, unknown>;
  /** No candidates; the prompt was blocked for this reason. */
  blockReason?: string;
  /** `null` leaves `responseId` out. */
  responseId?: string | null;
  /** Answer with this Google error instead. */
  error?: { status: number; googleStatus: string; message: string; reason?: string; retryDelay?: string };
  /** Stream only: after this many chunks, send an in-stream error object and end. */
  streamErrorAfter?: number;
  /** Stream only: after this many chunks, destroy the socket. */
  truncateAfter?: number;
  /** Destroy the connection without answering. */
  reset?: boolean;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface RecordedGeminiRequest {
  method: string;
  /** The path without the query: `/v1beta/models/gemini-2.5-pro:generateContent`. */
  path: string;
  model: string;
  action: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: Record<string, any>;
}

export interface FakeGeminiServer {
  /** Base URL to hand to the SDK (no version path; the SDK adds `/v1beta`). */
  url: string;
  requests: RecordedGeminiRequest[];
  enqueue(...replies: GeminiReply[]): void;
  /** Answers a request when the queue is empty (a model that reads what it was sent); else the default hello. */
  respondWith?: ((body: Record<string, any>) => GeminiReply) | undefined;
  /** Forgets the recorded requests and any replies left unused. */
  reset(): void;
  close(): Promise<void>;
}

// The Gemini API's path, or Vertex AI's: /v1/projects/{project}/locations/{location}/publishers/google/models/{model}.
const ROUTE = new RegExp(
  '^/(v1(?:alpha|beta)?)/(?:projects/[^/]+/locations/[^/]+/publishers/google/)?models/([^/:]+):' +
    '(generateContent|streamGenerateContent|batchEmbedContents|predict)$',
);

export async function startFakeGeminiServer(): Promise<FakeGeminiServer> {
  const requests: RecordedGeminiRequest[] = [];
  const queue: GeminiReply[] = [];
  let counter = 0;

  const { origin, close } = await startFakeHttpServer(async (request, response, body) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const route = ROUTE.exec(url.pathname);
    requests.push({
      method: request.method ?? '',
      path: url.pathname,
      model: route?.[2] ?? '',
      action: route?.[3] ?? '',
      query: Object.fromEntries(url.searchParams),
      headers: request.headers,
      body,
    });

    if (request.method !== 'POST' || !route) {
      return sendError(response, { status: 404, googleStatus: 'NOT_FOUND', message: `Unknown path ${url.pathname}` });
    }
    // The Gemini API takes a key; Vertex AI an OAuth token.
    const vertex = url.pathname.includes('/publishers/google/');
    const authorized = vertex
      ? /^Bearer \S+$/.test(String(request.headers.authorization ?? ''))
      : request.headers['x-goog-api-key'] || url.searchParams.has('key');
    if (!authorized) {
      return sendError(response, {
        status: 403,
        googleStatus: 'PERMISSION_DENIED',
        message: "Method doesn't allow unregistered callers. Please use an API key.",
      });
    }
    if (route[3] === 'batchEmbedContents') return embeddings(response, body, queue.shift());
    if (route[3] === 'predict') return predict(response, body, queue.shift(), sendError);
    const asked =
      queue.shift() ??
      fake.respondWith?.(body) ??
      speechReply(route[2]!, body) ??
      defaultReply(route[2]!, body.generationConfig ?? {});
    const reply = limitedReply(asked, body.generationConfig ?? {});
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (reply.reset) return request.socket.destroy();
    if (reply.error) return sendError(response, reply.error);
    counter += 1;
    const responseId = reply.responseId === undefined ? `fake-response-${counter}` : reply.responseId;
    if (route[3] === 'streamGenerateContent') return stream(response, reply, responseId, route[2]!);
    sendJSON(response, 200, whole(reply, responseId, route[2]!));
  });

  const fake: FakeGeminiServer = {
    url: origin,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    reset: () => {
      requests.length = 0;
      queue.length = 0;
    },
    close,
  };
  return fake;
}

/**
 * The reply as Gemini shapes it for the request: `candidateCount` candidates, text held to `maxOutputTokens` and
 * `stopSequences`.
 */
function limitedReply(reply: GeminiReply, config: Record<string, any>): GeminiReply {
  if (reply.text === undefined || reply.parts || reply.finishReason !== undefined) return reply;
  const { text, cut } = withinLimits(reply.text, { maxTokens: config.maxOutputTokens, stop: config.stopSequences });
  const finishReason = cut === 'length' ? 'MAX_TOKENS' : 'STOP';
  const extra = Array.from({ length: (config.candidateCount ?? 1) - 1 }, () => ({ parts: [{ text }], finishReason }));
  return {
    ...reply,
    text,
    finishReason,
    ...(extra.length && !reply.extraCandidates ? { extraCandidates: extra } : {}),
  };
}

/** A 2×2 PNG, as an image model's `inlineData` carries one (base64, no data: prefix). */
export const FAKE_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAGUlEQVR4AQEOAPH/AAAAgP8AgAAA/4D//4Af+gX9X7B3OQAAAABJRU5ErkJggg==';

/**
 * The hello, or under `responseModalities` with IMAGE what an image model answers: the text (when TEXT is asked too)
 * and one `inlineData` PNG, its 1290 tokens counted under modality IMAGE as Gemini counts a 1024px picture.
 */
function defaultReply(model: string, config: Record<string, any>): GeminiReply {
  const modalities: unknown[] = Array.isArray(config.responseModalities) ? config.responseModalities : [];
  if (!modalities.includes('IMAGE')) return { text: `Hello from fake ${model}` };
  const text = modalities.includes('TEXT') ? [{ text: `A picture from fake ${model}` }] : [];
  return {
    parts: [...text, { inlineData: { mimeType: 'image/png', data: FAKE_PNG_BASE64 } }],
    usage: {
      candidatesTokenCount: 1290 + text.length * 6,
      candidatesTokensDetails: [
        ...(text.length ? [{ modality: 'TEXT', tokenCount: 6 }] : []),
        { modality: 'IMAGE', tokenCount: 1290 },
      ],
    },
  };
}

function partsOf(reply: GeminiReply): WirePart[] {
  return reply.parts ?? (reply.text !== undefined ? [{ text: reply.text }] : []);
}

function usageOf(reply: GeminiReply): Record<string, unknown> {
  const usage: Record<string, unknown> = { promptTokenCount: 12, candidatesTokenCount: 7, ...reply.usage };
  const total = ['promptTokenCount', 'candidatesTokenCount', 'thoughtsTokenCount', 'toolUsePromptTokenCount'].reduce(
    (sum, key) => sum + (typeof usage[key] === 'number' ? usage[key] : 0),
    0,
  );
  return { ...usage, totalTokenCount: total };
}

function whole(reply: GeminiReply, responseId: string | null, model: string): Record<string, unknown> {
  const base = { usageMetadata: usageOf(reply), modelVersion: model, ...(responseId ? { responseId } : {}) };
  if (reply.blockReason)
    return {
      promptFeedback: { blockReason: reply.blockReason, blockReasonMessage: 'The prompt was blocked.' },
      ...base,
    };
  const finishReason = reply.finishReason === undefined ? 'STOP' : reply.finishReason;
  const candidates = [
    { content: { role: 'model', parts: partsOf(reply) }, ...(finishReason ? { finishReason } : {}), index: 0 },
    ...(reply.extraCandidates ?? []).map((candidate, index) => ({
      content: { role: 'model', parts: candidate.parts },
      finishReason: candidate.finishReason ?? 'STOP',
      index: index + 1,
    })),
  ];
  return { candidates, ...base };
}

function stream(response: ServerResponse, reply: GeminiReply, responseId: string | null, model: string): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const base = { modelVersion: model, ...(responseId ? { responseId } : {}) };
  const usage = usageOf(reply);
  const send = (payload: Record<string, unknown>) =>
    response.write(`data: ${JSON.stringify({ ...base, ...payload })}\r\n\r\n`);

  if (reply.blockReason) {
    send({
      promptFeedback: { blockReason: reply.blockReason, blockReasonMessage: 'The prompt was blocked.' },
      usageMetadata: usage,
    });
    return void response.end();
  }
  // Text in small pieces; a function call (or a signature-only part) whole, as Gemini sends them.
  const pieces: WirePart[] = [];
  for (const part of partsOf(reply)) {
    if (typeof part.text !== 'string' || part.text.length <= 5) {
      pieces.push(part);
      continue;
    }
    const { thoughtSignature, ...rest } = part;
    for (let index = 0; index < part.text.length; index += 5) {
      const last = index + 5 >= part.text.length;
      pieces.push({
        ...rest,
        text: part.text.slice(index, index + 5),
        ...(last && thoughtSignature ? { thoughtSignature } : {}),
      });
    }
  }
  const finishReason = reply.finishReason === undefined ? 'STOP' : reply.finishReason;
  const count = Math.max(pieces.length, 1);
  for (let index = 0; index < count; index++) {
    if (reply.truncateAfter === index) return void response.socket?.destroy();
    if (reply.streamErrorAfter === index) {
      const failure = errorBody({ status: 500, googleStatus: 'INTERNAL', message: 'An internal error has occurred.' });
      response.write(`data: ${JSON.stringify(failure)}\r\n\r\n`);
      return void response.end();
    }
    const last = index === count - 1;
    const parts = pieces[index] ? [pieces[index]] : [];
    send({
      candidates: [{ content: { role: 'model', parts }, ...(last && finishReason ? { finishReason } : {}), index: 0 }],
      // Gemini reports the prompt count early and the full usage on the last chunk.
      usageMetadata: last
        ? usage
        : { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount },
    });
  }
  response.end();
}

function errorBody(error: NonNullable<GeminiReply['error']>): Record<string, unknown> {
  const details: Array<Record<string, unknown>> = [];
  if (error.reason) {
    details.push({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: error.reason,
      domain: 'googleapis.com',
      metadata: { service: 'generativelanguage.googleapis.com' },
    });
  }
  if (error.retryDelay)
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: error.retryDelay });
  return {
    error: {
      code: error.status,
      message: error.message,
      status: error.googleStatus,
      ...(details.length ? { details } : {}),
    },
  };
}

function sendError(response: ServerResponse, error: NonNullable<GeminiReply['error']>): void {
  sendJSON(response, error.status, errorBody(error));
}

function sendJSON(response: ServerResponse, status: number, body: unknown): void {
  sendJSONWith(response, status, body, { 'content-type': 'application/json; charset=UTF-8' });
}

/** `:batchEmbedContents`: a vector per request (its text's length, then halves), no token count, as Gemini answers. */
function embeddings(response: ServerResponse, body: Record<string, any>, reply: GeminiReply | undefined): void {
  if (reply?.error) {
    sendError(response, reply.error);
    return;
  }
  const requests = body.requests as Array<{
    content: { parts: Array<{ text: string }> };
    outputDimensionality?: number;
  }>;
  // Google's limit on one batch.
  if (requests.length > 100) {
    const message = '* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch\n';
    sendError(response, { status: 400, googleStatus: 'INVALID_ARGUMENT', message });
    return;
  }
  sendJSON(response, 200, {
    embeddings: requests.map((request) => {
      const text = request.content.parts.map((part) => part.text).join('');
      return {
        values: Array.from({ length: request.outputDimensionality ?? 4 }, (_, at) => (at === 0 ? text.length : 0.5)),
      };
    }),
  });
}

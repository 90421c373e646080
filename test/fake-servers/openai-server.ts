import type { ServerResponse } from 'node:http';
import { pieces, type RecordedRequest, sendJSON as sendJSONWith, startFakeHttpServer, withinLimits } from './http.ts';
import { answerMedia, type FakeMediaReply } from './openai-media.ts';

/**
 * A fake OpenAI-compatible server speaking the Chat Completions wire format: JSON completions,
 * SSE streams with `data:` lines and `[DONE]`, the usage chunk of `stream_options.include_usage`, error bodies,
 * retry-after headers, in-stream errors and dropped connections. Tests drive it through the real `openai` SDK.
 */
export interface FakeReply {
  content?: string | null;
  /** Embeddings only: vectors of this length whatever `dimensions` asked (a provider that ignores it). */
  embeddingSize?: number;
  /**
   * Reasoning text, sent in the field this provider uses (`reasoning` for Groq/OpenRouter, `reasoning_content` for
   * DeepSeek/xAI).
   */
  reasoning?: { field: 'reasoning' | 'reasoning_content'; text: string };
  refusal?: string;
  tool_calls?: Array<{ id: string; name: string; arguments: string }>;
  /** Calls of custom (free-form) tools, after the function calls: `custom: { name, input }`, streamed in pieces. */
  custom_calls?: Array<{ id: string; name: string; input: string }>;
  finish_reason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number; reasoning_tokens?: number; cached_tokens?: number };
  /** Answer with this HTTP error instead. */
  error?: {
    status: number;
    message: string;
    type?: string;
    param?: string | null;
    code?: string | null;
    headers?: Record<string, string>;
  };
  /** Stream only: after this many content chunks, send an in-stream error event and end. */
  streamErrorAfter?: number;
  /** Stream only: after this many content chunks, destroy the socket. */
  truncateAfter?: number;
  /** Destroy the connection without answering. */
  reset?: boolean;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Media answers only (`openai-media.ts`): the transcript, the usage sent. */
  media?: FakeMediaReply;
}

export interface FakeOpenAIServer {
  /** Base URL to hand to the SDK, ending in `/v1`. */
  url: string;
  requests: RecordedRequest[];
  enqueue(...replies: FakeReply[]): void;
  /** Answers a request when the queue is empty (a model that reads what it was sent); else the default hello. */
  respondWith?: ((body: Record<string, any>, headers: RecordedRequest['headers']) => FakeReply) | undefined;
  close(): Promise<void>;
}

export async function startFakeOpenAIServer(): Promise<FakeOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const queue: FakeReply[] = [];
  let counter = 0;

  const { origin, close } = await startFakeHttpServer(async (request, response, body, raw) => {
    const recorded: RecordedRequest = {
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body,
    };
    requests.push(recorded);
    response.once('close', () => (recorded.closedEarly = !response.writableFinished));

    if (request.url?.endsWith('/embeddings')) return embeddings(response, body, queue.shift());
    if (/\/(images|audio)\//.test(request.url ?? ''))
      return answerMedia(request, response, recorded, raw, queue.shift());
    if (!request.url?.endsWith('/chat/completions')) {
      return sendJSON(response, 404, {
        error: { message: `Unknown path ${request.url}`, type: 'invalid_request_error', param: null, code: null },
      });
    }
    if (request.headers.authorization !== undefined && !/^Bearer \S+$/.test(request.headers.authorization)) {
      return sendJSON(response, 401, {
        error: {
          message: 'Malformed Authorization header',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      });
    }
    const reply = queue.shift() ??
      fake.respondWith?.(body, request.headers) ?? { content: `Hello from fake ${body.model}` };
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (reply.reset) return request.socket.destroy();
    if (reply.error) {
      const { status, message, type = 'invalid_request_error', param = null, code = null, headers = {} } = reply.error;
      return sendJSON(response, status, { error: { message, type, param, code } }, headers);
    }
    counter += 1;
    const id = `chatcmpl-fake${counter}`;
    const usage = usageOf(reply);
    if (body.stream) return stream(response, id, body, limitedReply(reply, body), usage);
    const limited = limitedReply(reply, body);
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: limited.content ?? null,
      refusal: limited.refusal ?? null,
    };
    if (limited.reasoning) message[limited.reasoning.field] = limited.reasoning.text;
    if (limited.tool_calls || limited.custom_calls) {
      message.tool_calls = [
        ...(limited.tool_calls ?? []).map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
        ...(limited.custom_calls ?? []).map(({ id, name, input }) => ({ id, type: 'custom', custom: { name, input } })),
      ];
    }
    const finish = limited.finish_reason ?? (message.tool_calls ? 'tool_calls' : 'stop');
    sendJSON(response, 200, {
      id,
      object: 'chat.completion',
      created: 1_760_000_000,
      model: body.model,
      // As OpenAI does: `n` choices.
      choices: Array.from({ length: body.n ?? 1 }, (_, index) => ({
        index,
        message,
        logprobs: null,
        finish_reason: finish,
      })),
      usage,
      system_fingerprint: 'fp_fake',
    });
  });

  const fake: FakeOpenAIServer = {
    url: `${origin}/v1`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    close,
  };
  return fake;
}

/** The reply's text held to the request's `max_completion_tokens` / `max_tokens` and `stop`, as OpenAI would. */
function limitedReply(reply: FakeReply, body: Record<string, any>): FakeReply {
  if (typeof reply.content !== 'string' || reply.tool_calls || reply.finish_reason) return reply;
  const stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
  const { text, cut } = withinLimits(reply.content, { maxTokens: body.max_completion_tokens ?? body.max_tokens, stop });
  return { ...reply, content: text, ...(cut ? { finish_reason: cut } : {}) };
}

function usageOf(reply: FakeReply) {
  const { prompt_tokens = 12, completion_tokens = 7, reasoning_tokens = 0, cached_tokens = 0 } = reply.usage ?? {};
  return {
    prompt_tokens,
    completion_tokens,
    total_tokens: prompt_tokens + completion_tokens,
    prompt_tokens_details: { cached_tokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function stream(
  response: ServerResponse,
  id: string,
  body: Record<string, any>,
  reply: FakeReply,
  usage: ReturnType<typeof usageOf>,
): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const includeUsage = body.stream_options?.include_usage === true;
  const base = {
    id,
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: body.model,
    system_fingerprint: 'fp_fake',
  };
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    response.write(
      `data: ${JSON.stringify({ ...base, choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`,
    );
  let choice = 0;
  const delta = (value: Record<string, unknown>, finish: string | null = null) =>
    send([{ index: choice, delta: value, logprobs: null, finish_reason: finish }]);

  // As OpenAI does: `n` choices, each streamed in turn under its index.
  for (; choice < (body.n ?? 1); choice++) {
    delta({ role: 'assistant', content: '', refusal: null });
    if (reply.reasoning) for (const piece of pieces(reply.reasoning.text)) delta({ [reply.reasoning.field]: piece });
    const contentPieces = pieces(reply.content ?? '');
    for (const [index, piece] of contentPieces.entries()) {
      if (reply.truncateAfter === index) {
        // What was written reaches the client first, as when a connection dies mid-answer.
        response.write('', () => response.socket?.destroy());
        return;
      }
      if (reply.streamErrorAfter === index) {
        const message = 'The server had an error while processing your request.';
        response.write(
          `data: ${JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } })}\n\n`,
        );
        return void response.end();
      }
      delta({ content: piece });
    }
    const functions = reply.tool_calls ?? [];
    for (const [index, call] of functions.entries()) {
      delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
      for (const piece of pieces(call.arguments)) delta({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
    // As OpenAI streams a custom call: its name first, then its input in pieces under `custom`.
    for (const [offset, call] of (reply.custom_calls ?? []).entries()) {
      const index = functions.length + offset;
      delta({ tool_calls: [{ index, id: call.id, type: 'custom', custom: { name: call.name, input: '' } }] });
      for (const piece of pieces(call.input)) delta({ tool_calls: [{ index, custom: { input: piece } }] });
    }
    const calls = functions.length > 0 || (reply.custom_calls?.length ?? 0) > 0;
    delta({}, reply.finish_reason ?? (calls ? 'tool_calls' : 'stop'));
  }
  if (includeUsage) response.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
  response.write('data: [DONE]\n\n');
  response.end();
}

function sendJSON(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJSONWith(response, status, body, { 'x-request-id': 'req_fake', ...headers });
}

/**
 * `/embeddings` as OpenAI answers it: a vector per input (its length, then its index, then halves, to `dimensions`
 * or 3 values), usage at four characters a token; a queued error reply answers with that error instead.
 */
function embeddings(response: ServerResponse, body: Record<string, any>, reply: FakeReply | undefined): void {
  if (reply?.error) {
    const { status, message, type = 'invalid_request_error', param = null, code = null, headers = {} } = reply.error;
    sendJSON(response, status, { error: { message, type, param, code } }, headers);
    return;
  }
  const texts: string[] = typeof body.input === 'string' ? [body.input] : body.input;
  const size = reply?.embeddingSize ?? body.dimensions ?? 3;
  const data = texts.map((text, index) => ({
    object: 'embedding',
    index,
    embedding: Array.from({ length: size }, (_, at) => (at === 0 ? text.length : at === 1 ? index : 0.5)),
  }));
  const tokens = texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  sendJSON(response, 200, {
    object: 'list',
    data,
    model: body.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

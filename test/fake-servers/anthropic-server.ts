import type { ServerResponse } from 'node:http';
import { pieces, type RecordedRequest, sendJSON, startFakeHttpServer, withinLimits } from './http.ts';

/**
 * A fake Anthropic Messages API (API version 2026-10-21): JSON messages, SSE streams with named
 * events in the real order, Anthropic error bodies, retry-after, in-stream `event: error`, dropped connections.
 * It also rejects what the real API rejects and an adapter could get wrong: sampling parameters on version
 * 2026-10-21 (an earlier version takes them: temperature up to 1, and only one of temperature and top_p for Claude
 * 4.5 and 4.6), a missing max_tokens, thinking budgets out of range, forced tool choice while thinking, unanswered
 * tool_use blocks.
 */
export type FakeBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  // A search Anthropic ran itself (the web search server tool): its call, streamed as a tool call is, and its results.
  | { type: 'server_tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'web_search_tool_result'; tool_use_id: string; content: Array<Record<string, unknown>> };

export interface FakeAnthropicReply {
  /** Content blocks in order; default one text block greeting the model. */
  content?: FakeBlock[];
  stop_reason?: string;
  stop_sequence?: string | null;
  stop_details?: { type: 'refusal'; category: string | null; explanation: string | null } | null;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_creation_input_tokens?: number;
    cache_read_input_tokens?: number;
    /** The part of `cache_creation_input_tokens` written with the one-hour time to live. */
    cache_creation_1h_input_tokens?: number;
    thinking_tokens?: number;
  };
  /** Answer with this HTTP error instead. */
  error?: { status: number; type: string; message: string; headers?: Record<string, string> };
  /** Stream only: after this many content deltas, send `event: error` (overloaded_error unless given) and end. */
  streamErrorAfter?: number;
  streamError?: { type: string; message: string };
  /** Destroy the connection without answering. */
  reset?: boolean;
  delayMs?: number;
}

export interface FakeAnthropicServer {
  /** Base URL to hand to the SDK (it appends `/v1/messages`). */
  url: string;
  requests: RecordedRequest[];
  enqueue(...replies: FakeAnthropicReply[]): void;
  /** Answers a request when the queue is empty (a model that reads what it was sent); else the default hello. */
  respondWith?: ((body: Record<string, any>) => FakeAnthropicReply) | undefined;
  close(): Promise<void>;
}

export async function startFakeAnthropicServer(): Promise<FakeAnthropicServer> {
  const requests: RecordedRequest[] = [];
  const queue: FakeAnthropicReply[] = [];
  let counter = 0;

  const { origin, close } = await startFakeHttpServer(async (request, response, body) => {
    requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
    counter += 1;
    const requestId = `req_fake${counter}`;
    const fail = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
      sendJSON(
        response,
        status,
        { type: 'error', error: { type, message }, request_id: requestId },
        { 'request-id': requestId, ...headers },
      );

    // Anthropic's API, or Claude on Vertex AI: the model in the path, the version in the body.
    const vertex = VERTEX_ROUTE.exec(request.url ?? '');
    if (vertex) {
      body.model = decodeURIComponent(vertex[1]!);
      if (vertex[2] === 'streamRawPredict') body.stream = true;
      request.headers['anthropic-version'] ??= body.anthropic_version;
      delete body.anthropic_version;
    }
    if (request.method !== 'POST' || (request.url !== '/v1/messages' && !vertex))
      return fail(404, 'not_found_error', `Not found: ${request.url}`);
    const key = request.headers['x-api-key'] ?? /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!key) return fail(401, 'authentication_error', 'x-api-key header is required');
    const invalid = invalidRequest(body, request.headers['anthropic-version']);
    if (invalid) return fail(400, 'invalid_request_error', invalid);

    const reply = queue.shift() ?? fake.respondWith?.(body) ?? {};
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (reply.reset) return request.socket.destroy();
    if (reply.error) return fail(reply.error.status, reply.error.type, reply.error.message, reply.error.headers);

    const message = messageOf(reply, body, `msg_fake${counter}`);
    if (body.stream) return stream(response, message, reply, requestId);
    sendJSON(response, 200, message, { 'request-id': requestId });
  });

  const fake: FakeAnthropicServer = {
    url: origin,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    close,
  };
  return fake;
}

/** Every `cache_control` of a request, in the order the API reads them: tools, system, messages. */
function cacheBreakpoints(body: Record<string, any>): Array<{ type: string; ttl?: string }> {
  const blocks = [
    ...(body.tools ?? []),
    ...(Array.isArray(body.system) ? body.system : []),
    ...body.messages.flatMap((message: { content: unknown }) =>
      Array.isArray(message.content) ? message.content : [],
    ),
  ];
  return blocks.flatMap((block: { cache_control?: { type: string; ttl?: string } }) =>
    block.cache_control ? [block.cache_control] : [],
  );
}

/** The 400s of the real API that an adapter can cause; `undefined` when the request is acceptable. */
const VERTEX_ROUTE =
  /^\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/;

/** Claude 4.5 and 4.6 take temperature or top_p, not both. */
const ONE_SAMPLING_PARAMETER = /^claude-(opus|sonnet|haiku)-4-[56]/;

function invalidRequest(body: Record<string, any>, version: string | string[] | undefined): string | undefined {
  if (!version) return 'anthropic-version: header is required';
  if (version === '2026-10-21') {
    for (const param of ['temperature', 'top_p', 'top_k'])
      if (param in body) return `${param}: Extra inputs are not permitted`;
  }
  if (body.temperature > 1) return 'temperature: Input should be less than or equal to 1';
  if ('temperature' in body && 'top_p' in body && ONE_SAMPLING_PARAMETER.test(body.model))
    return '`temperature` and `top_p` cannot both be specified for this model. Please use only one.';
  if (!Number.isInteger(body.max_tokens)) return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  if (
    body.messages.some(
      (message: { role: string }) =>
        message.role !== 'user' && message.role !== 'assistant' && message.role !== 'system',
    )
  ) {
    return 'messages: Input tag does not match the expected tags';
  }
  const breakpoints = cacheBreakpoints(body);
  if (breakpoints.length > 4)
    return `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints.length}.`;
  for (const control of breakpoints) {
    if (control.type !== 'ephemeral' || (control.ttl !== undefined && control.ttl !== '5m' && control.ttl !== '1h'))
      return `cache_control: Input tag '${control.type}' does not match the expected tags`;
  }
  const thinking = body.thinking;
  if (thinking?.type === 'enabled') {
    if (!(thinking.budget_tokens >= 1024))
      return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if (thinking.budget_tokens >= body.max_tokens) return '`max_tokens` must be greater than `thinking.budget_tokens`.';
  }
  if (thinking && thinking.type !== 'disabled' && ['any', 'tool'].includes(body.tool_choice?.type)) {
    return 'Thinking may not be enabled when tool_choice forces tool use.';
  }
  for (const [index, message] of body.messages.entries()) {
    const blocks = Array.isArray(message.content) ? message.content : [];
    const toolUses = blocks
      .filter((block: { type: string }) => block.type === 'tool_use')
      .map((block: { id: string }) => block.id);
    if (message.role !== 'assistant' || toolUses.length === 0) continue;
    const next = body.messages[index + 1];
    const answered = new Set(
      (Array.isArray(next?.content) ? next.content : [])
        .filter((block: { type: string }) => block.type === 'tool_result')
        .map((block: { tool_use_id: string }) => block.tool_use_id),
    );
    const missing = toolUses.find((id: string) => !answered.has(id));
    if (missing)
      return `messages.${index + 1}: tool_use ids were found without tool_result blocks immediately after: ${missing}`;
  }
  return undefined;
}

function messageOf(reply: FakeAnthropicReply, body: Record<string, any>, id: string) {
  // Text held to max_tokens and stop_sequences, as the Messages API does.
  let stop: { reason: string; sequence: string | null } | undefined;
  const content = (reply.content ?? [{ type: 'text', text: `Hello from fake ${body.model}` }]).map((block) => {
    if (block.type !== 'text') return block.type === 'tool_use' ? { ...block, caller: { type: 'direct' } } : block;
    const { text, cut, stopSequence } = withinLimits(block.text, {
      maxTokens: body.max_tokens,
      stop: body.stop_sequences,
    });
    if (cut && !stop)
      stop = { reason: cut === 'length' ? 'max_tokens' : 'stop_sequence', sequence: stopSequence ?? null };
    return { ...block, text, citations: null };
  });
  const {
    input_tokens = 12,
    output_tokens = 7,
    cache_creation_input_tokens = 0,
    cache_read_input_tokens = 0,
    cache_creation_1h_input_tokens = 0,
    thinking_tokens,
  } = reply.usage ?? {};
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason:
      reply.stop_reason ??
      stop?.reason ??
      (content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    stop_sequence: reply.stop_sequence ?? stop?.sequence ?? null,
    stop_details: reply.stop_details ?? null,
    container: null,
    diagnostics: null,
    usage: {
      input_tokens,
      output_tokens,
      cache_creation_input_tokens,
      cache_read_input_tokens,
      cache_creation: {
        ephemeral_5m_input_tokens: cache_creation_input_tokens - cache_creation_1h_input_tokens,
        ephemeral_1h_input_tokens: cache_creation_1h_input_tokens,
      },
      output_tokens_details: thinking_tokens === undefined ? null : { thinking_tokens },
      server_tool_use: null,
      service_tier: 'standard',
      inference_geo: null,
      speed: 'standard',
    },
  };
}

/**
 * Anthropic's documented event order: message_start, ping, per block start/deltas/stop, message_delta (cumulative
 * usage), message_stop.
 */
function stream(
  response: ServerResponse,
  message: ReturnType<typeof messageOf>,
  reply: FakeAnthropicReply,
  requestId: string,
): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': requestId,
  });
  const send = (type: string, data: Record<string, unknown>) =>
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  let deltas = 0;
  /** Sends a content delta, or the scripted error instead once enough deltas went out; false when the stream ended. */
  const delta = (index: number, value: Record<string, unknown>): boolean => {
    if (reply.streamErrorAfter === deltas) {
      send('error', { error: reply.streamError ?? { type: 'overloaded_error', message: 'Overloaded' } });
      response.end();
      return false;
    }
    deltas += 1;
    send('content_block_delta', { index, delta: value });
    return true;
  };

  const { usage } = message;
  send('message_start', {
    message: {
      ...message,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      usage: { ...usage, output_tokens: 1, output_tokens_details: null },
    },
  });
  send('ping', {});
  for (const [index, block] of message.content.entries()) {
    if (block.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '', citations: null } });
      for (const piece of pieces(block.text)) if (!delta(index, { type: 'text_delta', text: piece })) return;
    } else if (block.type === 'thinking') {
      send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const piece of pieces(block.thinking))
        if (!delta(index, { type: 'thinking_delta', thinking: piece })) return;
      if (!delta(index, { type: 'signature_delta', signature: block.signature })) return;
    } else if (block.type === 'redacted_thinking' || block.type === 'web_search_tool_result') {
      send('content_block_start', { index, content_block: block });
    } else {
      send('content_block_start', { index, content_block: { ...block, input: {} } });
      const json = Object.keys(block.input).length ? JSON.stringify(block.input) : '';
      for (const piece of json ? pieces(json) : [''])
        if (!delta(index, { type: 'input_json_delta', partial_json: piece })) return;
    }
    send('content_block_stop', { index });
  }
  if (reply.streamErrorAfter !== undefined && reply.streamErrorAfter >= deltas) {
    send('error', { error: reply.streamError ?? { type: 'overloaded_error', message: 'Overloaded' } });
    return void response.end();
  }
  send('message_delta', {
    delta: {
      stop_reason: message.stop_reason,
      stop_sequence: message.stop_sequence,
      stop_details: message.stop_details,
      container: null,
    },
    usage: {
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens,
      output_tokens_details: usage.output_tokens_details,
      server_tool_use: null,
    },
  });
  send('message_stop', {});
  response.end();
}

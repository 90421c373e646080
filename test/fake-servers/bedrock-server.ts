import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { invokeImages } from './bedrock-images.ts';
import { pieces, withinLimits } from './http.ts';

/**
 * A fake Bedrock runtime speaking Converse (`POST /model/{id}/converse`, JSON), ConverseStream
 * (`/converse-stream`, AWS event-stream binary frames encoded with @smithy/eventstream-codec) and InvokeModel for
 * Amazon's image models (`/invoke`, `bedrock-images.ts`), over HTTP/1.1 as
 * the adapter's fetch handler speaks it. Requests must carry a SigV4 `Authorization` of the right shape (or a
 * Bedrock API key as a Bearer token); errors come as Bedrock's, named in `x-amzn-errortype`.
 */
export interface BedrockReply {
  text?: string;
  reasoning?: { text: string; signature: string };
  toolUse?: { id: string; name: string; input: Record<string, unknown> };
  stopReason?: string;
  usage?: { inputTokens: number; outputTokens: number; cacheReadInputTokens?: number; cacheWriteInputTokens?: number };
  /** Answer with this Bedrock exception instead. */
  error?: { status: number; type: string; message: string };
  /** Stream only: after the text, an exception event of this type instead of messageStop. */
  streamException?: string;
  /** InvokeModel images only: the `images` answered (default one 2×2 PNG per image asked). */
  images?: string[];
}

export interface RecordedBedrockRequest {
  path: string;
  modelId: string;
  operation: 'converse' | 'converse-stream' | 'invoke';
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, any>;
}

export interface FakeBedrockServer {
  url: string;
  requests: RecordedBedrockRequest[];
  enqueue(...replies: BedrockReply[]): void;
  close(): Promise<void>;
}

const SIGV4 = new RegExp(
  '^AWS4-HMAC-SHA256 Credential=[A-Z0-9]+/\\d{8}/[a-z0-9-]+/bedrock/aws4_request, ' +
    'SignedHeaders=[a-z0-9;:-]+, Signature=[0-9a-f]{64}$',
);
const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream|invoke)$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const codec = new EventStreamCodec(
  (bytes) => decoder.decode(bytes),
  (text) => encoder.encode(text),
);

export async function startFakeBedrockServer(): Promise<FakeBedrockServer> {
  const requests: RecordedBedrockRequest[] = [];
  const queue: BedrockReply[] = [];
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = request.url ?? '';
    const route = ROUTE.exec(url.split('?')[0]!);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
    if (!route) return sendError(response, { status: 404, type: 'UnknownOperationException', message: url });
    const modelId = decodeURIComponent(route[1]!);
    const operation = route[2] as RecordedBedrockRequest['operation'];
    requests.push({ path: url, modelId, operation, headers: request.headers, body });
    const authorization = String(request.headers.authorization ?? '');
    if (!SIGV4.test(authorization) && !/^Bearer \S+$/.test(authorization))
      return sendError(response, { status: 403, type: 'UnrecognizedClientException', message: 'Bad signature' });
    if (operation === 'invoke') {
      const reply = queue.shift();
      if (reply?.error) return sendError(response, reply.error);
      const result = invokeImages(modelId, body, reply?.images);
      if ('invalid' in result)
        return sendError(response, { status: 400, type: 'ValidationException', message: result.invalid });
      return sendJson(response, 200, result.answer);
    }
    const invalid = invalidSampling(modelId, body.inferenceConfig ?? {});
    if (invalid) return sendError(response, { status: 400, type: 'ValidationException', message: invalid });
    const reply = limited(queue.shift() ?? { text: `Hello from fake Bedrock ${modelId}` }, body.inferenceConfig ?? {});
    if (reply.error) return sendError(response, reply.error);
    if (operation === 'converse') return sendJson(response, 200, converse(reply));
    response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
    for (const frame of streamFrames(reply)) response.write(frame);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function usageOf(reply: BedrockReply) {
  const usage = reply.usage ?? { inputTokens: 12, outputTokens: 7 };
  return { ...usage, totalTokens: usage.inputTokens + usage.outputTokens };
}

function converse(reply: BedrockReply): Record<string, unknown> {
  const content: unknown[] = [];
  if (reply.reasoning) content.push({ reasoningContent: { reasoningText: reply.reasoning } });
  if (reply.text !== undefined) content.push({ text: reply.text });
  if (reply.toolUse)
    content.push({ toolUse: { toolUseId: reply.toolUse.id, name: reply.toolUse.name, input: reply.toolUse.input } });
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: reply.stopReason ?? (reply.toolUse ? 'tool_use' : 'end_turn'),
    usage: usageOf(reply),
    metrics: { latencyMs: 5 },
  };
}

function* streamFrames(reply: BedrockReply): Iterable<Uint8Array> {
  yield event('messageStart', { role: 'assistant' });
  let block = 0;
  if (reply.reasoning) {
    for (const piece of pieces(reply.reasoning.text))
      yield event('contentBlockDelta', { contentBlockIndex: block, delta: { reasoningContent: { text: piece } } });
    yield event('contentBlockDelta', {
      contentBlockIndex: block,
      delta: { reasoningContent: { signature: reply.reasoning.signature } },
    });
    yield event('contentBlockStop', { contentBlockIndex: block++ });
  }
  if (reply.text !== undefined) {
    for (const piece of pieces(reply.text))
      yield event('contentBlockDelta', { contentBlockIndex: block, delta: { text: piece } });
    yield event('contentBlockStop', { contentBlockIndex: block++ });
  }
  if (reply.streamException) {
    yield frame(
      { ':message-type': 'exception', ':exception-type': reply.streamException },
      { message: 'Stream failed' },
    );
    return;
  }
  if (reply.toolUse) {
    const { id, name, input } = reply.toolUse;
    yield event('contentBlockStart', { contentBlockIndex: block, start: { toolUse: { toolUseId: id, name } } });
    for (const piece of pieces(JSON.stringify(input)))
      yield event('contentBlockDelta', { contentBlockIndex: block, delta: { toolUse: { input: piece } } });
    yield event('contentBlockStop', { contentBlockIndex: block++ });
  }
  yield event('messageStop', { stopReason: reply.stopReason ?? (reply.toolUse ? 'tool_use' : 'end_turn') });
  yield event('metadata', { usage: usageOf(reply), metrics: { latencyMs: 5 } });
}

function event(type: string, payload: unknown): Uint8Array {
  return frame({ ':message-type': 'event', ':event-type': type }, payload);
}

function frame(headers: Record<string, string>, payload: unknown): Uint8Array {
  const encoded: MessageHeaders = { ':content-type': { type: 'string', value: 'application/json' } };
  for (const [name, value] of Object.entries(headers)) encoded[name] = { type: 'string', value };
  return codec.encode({ headers: encoded, body: encoder.encode(JSON.stringify(payload)) });
}

/** What Claude refuses of the sampling parameters Converse passes on: a temperature above 1; both, from 4.5 on. */
function invalidSampling(modelId: string, config: { temperature?: number; topP?: number }): string | undefined {
  if (!/anthropic\.claude/.test(modelId)) return undefined;
  const refused = 'The model returned the following errors: ';
  if ((config.temperature ?? 0) > 1) return `${refused}temperature: range: 0..1`;
  if (config.temperature !== undefined && config.topP !== undefined && /claude-(opus|sonnet|haiku)-4-5/.test(modelId))
    return `${refused}\`temperature\` and \`top_p\` cannot both be specified for this model. Please use only one.`;
  return undefined;
}

function sendError(response: ServerResponse, error: { status: number; type: string; message: string }): void {
  response.writeHead(error.status, { 'content-type': 'application/json', 'x-amzn-errortype': error.type });
  response.end(JSON.stringify({ message: error.message }));
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** The reply's text held to `inferenceConfig`'s maxTokens and stopSequences, as the model would be. */
function limited(reply: BedrockReply, config: { maxTokens?: number; stopSequences?: string[] }): BedrockReply {
  if (reply.text === undefined || reply.stopReason || reply.toolUse) return reply;
  const held = withinLimits(reply.text, { maxTokens: config.maxTokens, stop: config.stopSequences });
  if (!held.cut) return reply;
  return { ...reply, text: held.text, stopReason: held.cut === 'length' ? 'max_tokens' : 'stop_sequence' };
}

import { AuthenticationError, ProviderError, RateLimitError, isRetryableStatus } from '../../errors.ts';
import { exampleFromSchema } from '../../internal/example-from-schema.ts';
import type { CompletionChunk } from '../../types.ts';
import type { Provider, ProviderCall, ProviderCompletion } from '../provider.ts';

/** A scripted reply: text, a full message, an error, or a function of the request that returns one of those. */
export type MockReply = string | MockMessage | MockFailure | ((request: MockRequest) => MockReply | Promise<MockReply>);

export interface MockMessage {
  content?: string | null;
  reasoning_content?: string;
  refusal?: string;
  tool_calls?: Array<{ id?: string; name: string; arguments: string | Record<string, unknown> }>;
  finish_reason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  usage?: { prompt_tokens?: number; completion_tokens?: number; reasoning_tokens?: number; cached_tokens?: number };
  /** Streams only: fail with this error after the content chunks went out. */
  stream_error?: MockFailure['error'];
}

export interface MockFailure {
  error: { status: number; message?: string; code?: string; retry_after_ms?: number };
}

/** What the simulator received: the provider-level request. */
export interface MockRequest {
  /** Catalog id of the model being simulated. */
  model: string;
  body: ProviderCall['body'];
  reasoning: ProviderCall['reasoning'];
}

export interface MockProviderOptions {
  /** Replies handed out in order, one per call; when empty, `respond` (or the default simulator) answers. */
  replies?: MockReply[];
  respond?: (request: MockRequest) => MockReply | Promise<MockReply>;
  /** Characters per streamed content chunk (default 16). */
  chunkSize?: number;
}

/**
 * The simulator: answers every catalog model deterministically without network, streams like the real thing,
 * and can be scripted per call. It runs behind the same routing, retries and records as a real provider.
 */
export class MockProvider implements Provider {
  readonly name = 'mock';
  /** Every request the simulator received, oldest first. */
  readonly calls: MockRequest[] = [];
  readonly #replies: MockReply[];
  readonly #respond: MockProviderOptions['respond'];
  readonly #chunkSize: number;
  #counter = 0;

  constructor(options: MockProviderOptions = {}) {
    this.#replies = [...(options.replies ?? [])];
    this.#respond = options.respond;
    this.#chunkSize = options.chunkSize ?? 16;
  }

  /** Queues replies for the next calls. */
  enqueue(...replies: MockReply[]): this {
    this.#replies.push(...replies);
    return this;
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const { id, message, request } = await this.#answer(call);
    const usage = usageOf(message, request);
    const toolCalls = toolCallsOf(message, id);
    return {
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: message.refusal ? null : (message.content ?? null),
            refusal: message.refusal ?? null,
            ...(message.reasoning_content !== undefined ? { reasoning_content: message.reasoning_content } : {}),
            ...(toolCalls ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: finishReasonOf(message, toolCalls),
          logprobs: null,
        },
      ],
      usage,
    };
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<CompletionChunk>> {
    const { id, message, request } = await this.#answer(call);
    return this.#chunks(id, message, request);
  }

  async *#chunks(id: string, message: MockMessage, request: MockRequest): AsyncIterable<CompletionChunk> {
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: CompletionChunk['choices'][number]['delta'], finish: CompletionChunk['choices'][number]['finish_reason'] = null): CompletionChunk => ({
      id, object: 'chat.completion.chunk', created, model: request.model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
    yield chunk({ role: 'assistant', content: '' });
    for (const piece of split(message.reasoning_content, this.#chunkSize)) yield chunk({ reasoning_content: piece });
    for (const piece of split(message.refusal ? undefined : (message.content ?? undefined), this.#chunkSize)) yield chunk({ content: piece });
    if (message.refusal) yield chunk({ refusal: message.refusal });
    const toolCalls = toolCallsOf(message, id);
    // Like OpenAI: the first fragment of a call names it, later fragments carry pieces of its arguments.
    for (const [index, toolCall] of (toolCalls ?? []).entries()) {
      yield chunk({ tool_calls: [{ index, id: toolCall.id, type: 'function', function: { name: toolCall.function.name, arguments: '' } }] });
      for (const piece of split(toolCall.function.arguments, this.#chunkSize)) {
        yield chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
      }
    }
    if (message.stream_error) throw failure({ error: message.stream_error }, request.model);
    yield chunk({}, finishReasonOf(message, toolCalls));
    yield { id, object: 'chat.completion.chunk', created, model: request.model, choices: [], usage: usageOf(message, request) };
  }

  async #answer(call: ProviderCall): Promise<{ id: string; message: MockMessage; request: MockRequest }> {
    const request: MockRequest = { model: call.model.id, body: call.body, reasoning: call.reasoning };
    this.calls.push(request);
    let reply: MockReply = this.#replies.shift() ?? this.#respond ?? simulate;
    while (typeof reply === 'function') {
      try {
        reply = await reply(request);
      } catch (error) {
        if (reply !== simulate) throw error;
        // A schema the simulator cannot instantiate is malformed: a real provider would reject it with a 400.
        throw failure({ error: { status: 400, message: `The simulator could not use a schema in the request: ${(error as Error).message}` } }, request.model);
      }
    }
    if (typeof reply === 'object' && 'error' in reply) throw failure(reply, request.model);
    const message: MockMessage = typeof reply === 'string' ? { content: reply } : reply;
    if (message.reasoning_content === undefined && call.model.supports.reasoning && call.reasoning && call.reasoning.effort !== 'disabled') {
      message.reasoning_content = `Simulated reasoning for ${call.model.id} at ${call.reasoning.effort} effort.`;
    }
    this.#counter += 1;
    return { id: `chatcmpl-mock-${this.#counter}`, message, request };
  }
}

/** The default answer: text that names the model and echoes the last user message; schema-valid JSON or a tool call when asked. */
function simulate(request: MockRequest): MockReply {
  const { body } = request;
  const choice = body.tool_choice;
  const forced = typeof choice === 'object' && choice && 'function' in choice ? choice.function.name : choice === 'required' ? firstToolName(body) : undefined;
  if (forced) {
    const tool = body.tools?.find((candidate) => candidate.type === 'function' && candidate.function.name === forced);
    const parameters = tool && tool.type === 'function' ? tool.function.parameters : undefined;
    return { tool_calls: [{ name: forced, arguments: (exampleFromSchema(parameters ?? { type: 'object' }) ?? {}) as Record<string, unknown> }] };
  }
  const format = body.response_format;
  if (format?.type === 'json_schema') return JSON.stringify(exampleFromSchema(format.json_schema.schema ?? { type: 'object' }));
  if (format?.type === 'json_object') return JSON.stringify({ model: request.model, reply: lastUserText(body) });
  return `Simulated reply from ${request.model} to: ${lastUserText(body).slice(0, 120)}`;
}

function firstToolName(body: ProviderCall['body']): string | undefined {
  const tool = body.tools?.[0];
  return tool && tool.type === 'function' ? tool.function.name : undefined;
}

function lastUserText(body: ProviderCall['body']): string {
  const message = [...body.messages].reverse().find((candidate) => candidate.role === 'user');
  if (!message) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ').trim();
}

function toolCallsOf(message: MockMessage, id: string) {
  return message.tool_calls?.map((toolCall, index) => ({
    id: toolCall.id ?? `call_${id.slice(-6)}_${index}`,
    type: 'function' as const,
    function: { name: toolCall.name, arguments: typeof toolCall.arguments === 'string' ? toolCall.arguments : JSON.stringify(toolCall.arguments) },
  }));
}

function finishReasonOf(message: MockMessage, toolCalls: unknown[] | undefined) {
  return message.finish_reason ?? (message.refusal ? 'content_filter' : toolCalls?.length ? 'tool_calls' : 'stop');
}

/** Roughly four characters a token, like the usual rule of thumb; deterministic for a given request. */
function usageOf(message: MockMessage, request: MockRequest) {
  const tokens = (text: string | null | undefined) => (text ? Math.ceil(text.length / 4) : 0);
  const prompt = message.usage?.prompt_tokens ?? tokens(JSON.stringify(request.body.messages));
  const reasoning = message.usage?.reasoning_tokens ?? tokens(message.reasoning_content);
  const visible = tokens(message.content) + tokens(message.refusal) + tokens(JSON.stringify(message.tool_calls ?? ''));
  const completion = message.usage?.completion_tokens ?? visible + reasoning;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: message.usage?.cached_tokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}

function failure(reply: MockFailure, model: string): ProviderError {
  const { status, message = `Simulated ${status} error`, code, retry_after_ms } = reply.error;
  const options = {
    provider: 'mock', model, status, code: code ?? null, retryable: isRetryableStatus(status), retryAfterMs: retry_after_ms,
  };
  const text = `mock (${model}) answered ${status}: ${message}`;
  if (status === 401 || status === 403) return new AuthenticationError(text, options);
  if (status === 429) return new RateLimitError(text, options);
  return new ProviderError(text, options);
}

function split(text: string | undefined, size: number): string[] {
  if (!text) return [];
  const pieces: string[] = [];
  for (let index = 0; index < text.length; index += size) pieces.push(text.slice(index, index + size));
  return pieces;
}

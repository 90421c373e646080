import type { ProviderError } from '../../errors.ts';
import type { CompletionChunk, CompletionChunkDelta, CompletionImage, ReasoningDetail } from '../../types.ts';
import type { EmbeddingCall, ProviderEmbedding } from '../embedding-api.ts';
import { lazyMedia, type MediaApi } from '../media-api.ts';
import {
  type Provider,
  type ProviderCall,
  type ProviderCompletion,
  type RequestShape,
  shapeOfOpenAIBody,
} from '../provider.ts';
import { fromStatus } from '../provider-errors.ts';
import { logprobsOf, type SimulatedChoice, shapeChoices, tokensOf } from './shape-answer.ts';
import { simulateAnswer } from './simulate-answer.ts';
import { simulateEmbedding } from './simulate-embedding.ts';
import { reasoningAsGiven } from './simulate-reasoning.ts';

/** A scripted reply: text, a full message, an error, or a function of the request that returns one of those. */
export type MockReply = string | MockMessage | MockFailure | ((request: MockRequest) => MockReply | Promise<MockReply>);

export interface MockMessage {
  content?: string | null;
  reasoning_content?: string;
  /** The provider's reasoning state (signatures); by default the simulator signs the reasoning as its provider. */
  reasoning_details?: ReasoningDetail[];
  refusal?: string;
  /** Function tool calls (`arguments`), and custom tool calls (`input`: the free-form text). */
  tool_calls?: Array<MockToolCall>;
  /** Images in the answer (`message.images`); by default a PNG when the request asks an image model for one. */
  images?: CompletionImage[];
  finish_reason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  usage?: { prompt_tokens?: number; completion_tokens?: number; reasoning_tokens?: number; cached_tokens?: number };
  /** Streams only: fail with this error after the content chunks went out. */
  stream_error?: MockFailure['error'];
}

export type MockToolCall =
  | { id?: string; name: string; arguments: string | Record<string, unknown> }
  | { id?: string; name: string; input: string };

export interface MockFailure {
  error: { status: number; message?: string; code?: string; retry_after_ms?: number };
}

/** What the simulator received: the provider-level request. */
export interface MockRequest {
  /** Catalog id of the model being simulated. */
  model: string;
  body: ProviderCall['body'];
  reasoning: ProviderCall['reasoning'];
  /** What the caller asked the answer to be, whether it reached the body natively or went into the prompt. */
  output: ProviderCall['output'];
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
 * and can be scripted per call. It runs behind the same routing, retries and records as a real provider, standing
 * in for each model's provider after that provider's own request conversion (see `stand-in.ts`), and shapes its
 * answers by the request as a provider would: `n`, `stop`, `max_tokens`, `logprobs`.
 */
/** Requests the simulator keeps for inspection (`calls`). */
export const MAX_REMEMBERED_CALLS = 10_000;

export class MockProvider implements Provider {
  readonly name = 'mock';
  /**
   * The requests the simulator received, oldest first: the last `MAX_REMEMBERED_CALLS`, so a long simulation does
   * not keep every request it ever answered.
   */
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

  /**
   * Images, speech and transcription (`simulateMedia`): a queued failure fails the call, a queued string is the
   * transcript (or the images' revised prompt).
   */
  readonly media: Required<MediaApi> = lazyMedia(async () =>
    (await import('./simulate-media.ts')).simulateMedia(this.#replies, failure),
  );

  /** Deterministic vectors (`simulateEmbedding`); a queued failure reply fails the call as for chat. */
  async embed(call: EmbeddingCall): Promise<ProviderEmbedding> {
    const next = this.#replies[0];
    if (next && typeof next === 'object' && 'error' in next) {
      this.#replies.shift();
      throw failure(next, call.model);
    }
    return simulateEmbedding(call);
  }

  /** `shape`: what the request asks once a provider converted it (default: the call's own OpenAI body). */
  async complete(call: ProviderCall, shape: RequestShape = shapeOfOpenAIBody(call.body)): Promise<ProviderCompletion> {
    const { id, message, request } = await this.#answer(call, shape);
    const choices = shapeChoices(message, shape, id);
    return {
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      choices: choices.map((choice) => ({
        index: choice.index,
        message: {
          role: 'assistant',
          content: choice.content,
          refusal: choice.refusal,
          ...(choice.reasoning !== undefined ? { reasoning_content: choice.reasoning } : {}),
          ...(message.reasoning_details ? { reasoning_details: message.reasoning_details } : {}),
          ...(choice.toolCalls ? { tool_calls: choice.toolCalls } : {}),
          ...(message.images ? { images: message.images } : {}),
        },
        finish_reason: choice.finishReason,
        logprobs: choice.logprobs,
      })),
      usage: usageOf(message, request, choices),
    };
  }

  async stream(
    call: ProviderCall,
    shape: RequestShape = shapeOfOpenAIBody(call.body),
  ): Promise<AsyncIterable<CompletionChunk>> {
    const { id, message, request } = await this.#answer(call, shape);
    return this.#chunks(id, message, request, shapeChoices(message, shape, id), shape.logprobs || 0);
  }

  async *#chunks(
    id: string,
    message: MockMessage,
    request: MockRequest,
    choices: SimulatedChoice[],
    top: number,
  ): AsyncIterable<CompletionChunk> {
    const created = Math.floor(Date.now() / 1000);
    const base = { id, object: 'chat.completion.chunk' as const, created, model: request.model };
    for (const choice of choices) {
      const chunk = (
        delta: CompletionChunkDelta,
        finish: SimulatedChoice['finishReason'] | null = null,
        logprobs: SimulatedChoice['logprobs'] = null,
      ): CompletionChunk => ({
        ...base,
        choices: [{ index: choice.index, delta, finish_reason: finish, logprobs }],
      });
      yield chunk({ role: 'assistant', content: '' });
      for (const piece of split(choice.reasoning, this.#chunkSize)) yield chunk({ reasoning_content: piece });
      // Like Claude: the signature when the thinking ends.
      if (message.reasoning_details) yield chunk({ reasoning_details: message.reasoning_details });
      for (const piece of split(choice.content ?? undefined, this.#chunkSize)) {
        yield chunk({ content: piece }, null, choice.logprobs && { content: logprobsOf(piece, top), refusal: null });
      }
      if (choice.refusal) yield chunk({ refusal: choice.refusal });
      // Like OpenRouter: each image whole, in a delta of its own.
      for (const image of message.images ?? []) yield chunk({ images: [image] });
      // Like OpenAI: the first fragment of a call names it, later fragments carry pieces of its arguments (or input).
      for (const [index, toolCall] of (choice.toolCalls ?? []).entries()) {
        if (toolCall.type === 'custom') {
          const { id, custom } = toolCall;
          yield chunk({ tool_calls: [{ index, id, type: 'custom', custom: { name: custom.name, input: '' } }] });
          for (const piece of split(custom.input, this.#chunkSize))
            yield chunk({ tool_calls: [{ index, custom: { input: piece } }] });
          continue;
        }
        yield chunk({
          tool_calls: [
            { index, id: toolCall.id, type: 'function', function: { name: toolCall.function.name, arguments: '' } },
          ],
        });
        for (const piece of split(toolCall.function.arguments, this.#chunkSize))
          yield chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
      }
      if (message.stream_error) throw failure({ error: message.stream_error }, request.model);
      yield chunk({}, choice.finishReason);
    }
    yield { ...base, choices: [], usage: usageOf(message, request, choices) };
  }

  async #answer(
    call: ProviderCall,
    shape: RequestShape,
  ): Promise<{ id: string; message: MockMessage; request: MockRequest }> {
    const request: MockRequest = {
      model: call.model.id,
      body: call.body,
      reasoning: call.reasoning,
      output: call.output,
    };
    this.calls.push(request);
    if (this.calls.length > MAX_REMEMBERED_CALLS) this.calls.splice(0, this.calls.length - MAX_REMEMBERED_CALLS);
    let reply: MockReply = this.#replies.shift() ?? this.#respond ?? simulateAnswer;
    while (typeof reply === 'function') {
      try {
        reply = await reply(request);
      } catch (error) {
        if (reply !== simulateAnswer) throw error;
        // A schema the simulator cannot instantiate is malformed: a real provider would reject it with a 400.
        throw failure(
          {
            error: {
              status: 400,
              message: `The simulator could not use a schema in the request: ${(error as Error).message}`,
            },
          },
          request.model,
        );
      }
    }
    if (typeof reply === 'object' && 'error' in reply) throw failure(reply, request.model);
    const message: MockMessage = typeof reply === 'string' ? { content: reply } : { ...reply };
    const generated =
      message.reasoning_content === undefined &&
      call.model.supports.reasoning &&
      call.reasoning !== undefined &&
      call.reasoning.effort !== 'disabled';
    if (generated)
      message.reasoning_content = `Simulated reasoning for ${call.model.id} at ${call.reasoning!.effort} effort.`;
    if (message.images === undefined && asksForImage(request, call.model.supports.image_output))
      message.images = [(await import('./simulate-image.ts')).simulateImage(request)];
    this.#counter += 1;
    const given = reasoningAsGiven(message, shape.reasoning, generated, shape.choices);
    return { id: `chatcmpl-mock-${this.#counter}`, message: given, request };
  }
}

/**
 * Gemini counts a picture of up to 1024×1024 as 1290 output tokens: the simulator reports the same for each image, so
 * the image token price is exercised as a real answer would exercise it.
 */
const SIMULATED_IMAGE_TOKENS = 1290;

/** Whether the request asks for images and reached a model that answers with them (the gate drops "image" else). */
function asksForImage(request: MockRequest, imageOutput: boolean | undefined): boolean {
  const modalities = (request.body as { modalities?: unknown }).modalities;
  return imageOutput === true && Array.isArray(modalities) && modalities.includes('image');
}

/** Usage as a provider counts it: the prompt once, every choice's output. */
function usageOf(message: MockMessage, request: MockRequest, choices: SimulatedChoice[]) {
  const prompt = message.usage?.prompt_tokens ?? tokensOf(JSON.stringify(request.body.messages));
  let reasoning = 0;
  let visible = 0;
  for (const choice of choices) {
    reasoning += tokensOf(choice.reasoning);
    visible += tokensOf(choice.content) + tokensOf(choice.refusal) + tokensOf(JSON.stringify(choice.toolCalls ?? ''));
  }
  if (message.usage?.reasoning_tokens !== undefined) reasoning = message.usage.reasoning_tokens;
  const images = (message.images?.length ?? 0) * choices.length * SIMULATED_IMAGE_TOKENS;
  const completion = message.usage?.completion_tokens ?? visible + reasoning + images;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: message.usage?.cached_tokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: reasoning, ...(images > 0 ? { image_tokens: images } : {}) },
  };
}

function failure(reply: MockFailure, model: string): ProviderError {
  const { status, message = `Simulated ${status} error`, code, retry_after_ms } = reply.error;
  return fromStatus({ provider: 'mock', model, secrets: [], baseURL: 'simulator', timeoutMs: 0 }, status, message, {
    code: code ?? null,
    retryAfterMs: retry_after_ms,
  });
}

function split(text: string | undefined, size: number): string[] {
  if (!text) return [];
  const pieces: string[] = [];
  for (let index = 0; index < text.length; index += size) pieces.push(text.slice(index, index + size));
  return pieces;
}

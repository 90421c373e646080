import { closestEffortLevel } from '../../reasoning.ts';
import type OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { ProviderError, isRetryableStatus } from '../../errors.ts';
import { parseRetryAfter } from '../../internal/parse-retry-after.ts';
import { isPlainObject } from '../../internal/shape.ts';
import { checkChunk, checkCompletion } from './answer-shape.ts';
import { abortedByCaller, answerTooLarge, fromStatus, incompleteStream, invalidResponse, streamError, timedOut, unreachable, type ErrorScope } from '../provider-errors.ts';
import { toStrictJsonSchema } from '../../structured-output/strict-json-schema.ts';
import type { CompletionChunk } from '../../types.ts';
import type { OpenAIFamilyQuirks } from './family.ts';
import { sdkClientOptions, type Provider, type ProviderCall, type ProviderCompletion, type ResolvedProviderSettings } from '../provider.ts';

/** The OpenAI adapter, on the official `openai` SDK; every OpenAI-compatible provider runs through it. */
export async function createOpenAIProvider(settings: ResolvedProviderSettings, quirks: OpenAIFamilyQuirks): Promise<Provider> {
  const { default: OpenAIClient } = await import('openai');
  const client = new OpenAIClient({ ...sdkClientOptions(settings), baseURL: settings.baseURL });
  return new OpenAIProvider(client, settings, quirks);
}

/** Exported for the Azure adapter, which hands it the SDK's Azure client. */
export class OpenAIProvider implements Provider {
  readonly name: string;
  readonly #client: OpenAI;
  readonly #settings: ResolvedProviderSettings;
  readonly #quirks: OpenAIFamilyQuirks;

  constructor(client: OpenAI, settings: ResolvedProviderSettings, quirks: OpenAIFamilyQuirks) {
    this.name = quirks.name;
    this.#client = client;
    this.#settings = settings;
    this.#quirks = quirks;
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const body = this.#toRequestBody(call);
    try {
      const completion = (await this.#client.chat.completions.create(body, { signal: call.signal })) as ProviderCompletion;
      if (isPlainObject(completion)) dropNulls(completion, ['usage']);
      for (const choice of arrayOrEmpty(completion?.choices)) this.#normalizeChoice(choice, 'message');
      const problem = checkCompletion(completion, '');
      if (problem) throw invalidResponse(this.#scope(body.model), problem);
      return completion;
    } catch (error) {
      throw this.#toProviderError(error, body.model);
    }
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<CompletionChunk>> {
    const body = this.#toRequestBody(call);
    const streamOptions: Record<string, boolean> = {};
    if (this.#quirks.streamUsage) streamOptions.include_usage = true;
    if (this.#quirks.disableObfuscation) streamOptions.include_obfuscation = false;
    try {
      const stream = await this.#client.chat.completions.create(
        { ...body, stream: true, ...(this.#quirks.streamUsage ? { stream_options: streamOptions } : {}) },
        { signal: call.signal },
      );
      return this.#convertChunks(stream, body.model, call.signal);
    } catch (error) {
      throw this.#toProviderError(error, body.model);
    }
  }

  async *#convertChunks(stream: AsyncIterable<ChatCompletionChunk>, model: string, signal: AbortSignal | undefined): AsyncIterable<CompletionChunk> {
    let finished = false;
    try {
      for await (const chunk of stream) {
        for (const choice of arrayOrEmpty(chunk?.choices)) this.#normalizeChoice(choice, 'delta');
        const problem = checkChunk(chunk, '');
        if (problem) throw invalidResponse(this.#scope(model), `stream chunk: ${problem}`);
        // Azure opens streams with a choice-less chunk that only carries prompt_filter_results.
        if (chunk.choices.length === 0 && !chunk.usage) continue;
        if (chunk.choices.some((choice) => choice.finish_reason)) finished = true;
        yield chunk;
      }
    } catch (error) {
      throw this.#toProviderError(error, model);
    }
    // The SDK ends quietly both when the caller aborts and when the body ends without [DONE]; neither is an answer.
    if (signal?.aborted) throw this.#toProviderError(new DOMException('aborted', 'AbortError'), model);
    if (!finished) throw incompleteStream(this.#scope(model), 'a finish_reason');
  }

  /** The caller's OpenAI body, adjusted to what this provider accepts. */
  #toRequestBody(call: ProviderCall): ChatCompletionCreateParamsBase {
    const body: Record<string, unknown> = { ...call.body };
    const quirks = this.#quirks;
    const deployment = this.#settings.deployments?.[call.body.model];
    if (deployment) body.model = deployment;

    if (body.max_tokens != null && quirks.maxTokensField === 'max_completion_tokens') {
      body.max_completion_tokens ??= body.max_tokens;
      delete body.max_tokens;
    } else if (body.max_completion_tokens != null && quirks.maxTokensField === 'max_tokens') {
      body.max_tokens ??= body.max_completion_tokens;
      delete body.max_completion_tokens;
    }
    for (const param of quirks.unsupportedParams ?? []) {
      if (body[param] === undefined) continue;
      delete body[param];
      call.warn({ code: 'unsupported_parameter', param, message: `${quirks.name} does not accept "${param}"; it was not sent.` });
    }
    for (const [ours, theirs] of Object.entries(quirks.renamedParams ?? {})) {
      if (body[ours] === undefined) continue;
      body[theirs] = body[ours];
      delete body[ours];
    }
    body.messages = withoutReasoningState(call.body.messages, quirks.acceptsReasoningContent ?? false);
    if (quirks.nineCharToolCallIds) body.messages = rewriteToolCallIds(body.messages as ChatCompletionCreateParamsBase['messages']);
    if (call.reasoning) this.#applyReasoning(call, body);
    body.response_format = strictResponseFormat(body.response_format);
    if (body.response_format === undefined) delete body.response_format;
    return body as unknown as ChatCompletionCreateParamsBase;
  }

  /** Effort-controlled models take `reasoning_effort`; the closest level the model accepts is sent. */
  #applyReasoning(call: ProviderCall, body: Record<string, unknown>): void {
    const facts = call.model.reasoning;
    const effort = call.reasoning!.effort;
    if (!facts || facts.control !== 'effort' || !facts.efforts?.length) {
      delete body.reasoning_effort;
      call.warn({
        code: 'reasoning_not_configurable',
        param: 'reasoning',
        message: `${call.model.id} on ${this.name} takes no reasoning setting; the model used its default.`,
      });
      return;
    }
    const levels = facts.efforts;
    let sent: string | undefined;
    if (effort === 'disabled' && !levels.includes('none') && this.#quirks.disableReasoning && facts.can_disable) {
      delete body.reasoning_effort;
      Object.assign(body, this.#quirks.disableReasoning);
      return;
    }
    if (effort === 'disabled') {
      sent = levels.find((level) => level === 'none') ?? levels[0];
      if (sent !== 'none') {
        call.warn({
          code: 'reasoning_not_disabled',
          param: 'reasoning',
          message: `${call.model.id} cannot switch reasoning off; it was sent the lowest effort, "${sent}".`,
        });
      }
    } else {
      sent = closestEffortLevel(levels, effort);
      if (sent !== effort) {
        call.warn({
          code: 'converted_parameter',
          param: 'reasoning',
          message: `${call.model.id} has no "${effort}" effort; "${sent}" was sent.`,
        });
      }
    }
    body.reasoning_effort = sent;
  }

  /**
   * Brings one choice to OpenAI's own form before it is checked: this provider's finish reasons and reasoning field
   * under OpenAI's names, nulls where OpenAI's types say "absent" removed (some providers write `tool_calls: null`),
   * and a missing message content written as the null it means. Anything else stays as sent, for the check to judge.
   */
  #normalizeChoice(choice: unknown, field: 'message' | 'delta'): void {
    if (!isPlainObject(choice)) return;
    const alias = this.#quirks.finishReasonAliases?.[choice.finish_reason as string];
    if (alias) choice.finish_reason = alias;
    const message = choice[field];
    if (!isPlainObject(message)) return;
    const reasoning = this.#quirks.reasoningField;
    if (reasoning && reasoning !== 'reasoning_content' && message[reasoning] !== undefined) {
      message.reasoning_content = message[reasoning];
      delete message[reasoning];
    }
    dropNulls(message, field === 'delta' ? ['role', 'tool_calls', 'function_call'] : ['tool_calls', 'function_call']);
    // A message's content is always present in OpenAI's form: null when there is none (a tool call).
    if (field === 'message' && message.content === undefined) message.content = null;
    if (field !== 'delta' || !Array.isArray(message.tool_calls)) return;
    for (const toolCall of message.tool_calls) {
      if (!isPlainObject(toolCall)) continue;
      dropNulls(toolCall, ['id', 'type', 'function']);
      if (isPlainObject(toolCall.function)) dropNulls(toolCall.function, ['name', 'arguments']);
    }
  }

  #scope(model: string): ErrorScope {
    const settings = this.#settings;
    return { provider: this.name, model, secrets: [settings.apiKey], baseURL: settings.baseURL, timeoutMs: settings.timeoutMs };
  }

  /** The SDK's failure as one of the shared provider errors. */
  #toProviderError(error: unknown, model: string): ProviderError {
    if (error instanceof ProviderError) return error;
    const scope = this.#scope(model);
    const tooLarge = answerTooLarge(scope, error);
    if (tooLarge) return tooLarge;
    const sdkName = (error as Error)?.constructor?.name ?? '';
    if (sdkName === 'APIUserAbortError' || (error as Error)?.name === 'AbortError') return abortedByCaller(scope, error);
    if (sdkName === 'APIConnectionTimeoutError') return timedOut(scope, error);
    if (error instanceof SyntaxError) return invalidResponse(scope, `the body is not JSON (${error.message})`, error);
    // A TypeError the SDK throws while reading an answer of the wrong shape; fetch's network failures have a cause.
    if (error instanceof TypeError && error.cause === undefined) return invalidResponse(scope, error.message, error);
    const apiError = error as { status?: number; message?: string; code?: string | null; param?: string | null; headers?: Headers };
    if (sdkName === 'APIError' && apiError.status === undefined) return streamError(scope, String(apiError.message), { cause: error });
    if (sdkName === 'APIConnectionError' || apiError.status === undefined) return unreachable(scope, error);
    const status = apiError.status;
    const code = apiError.code ?? null;
    // The SDK's message starts with the status ("429 Rate limit…"); ours says it once.
    return fromStatus(scope, status, (apiError.message ?? 'no message').replace(/^\d{3} /, ''), {
      code,
      param: apiError.param ?? null,
      // insufficient_quota is a 429 that will not get better by waiting.
      retryable: isRetryableStatus(status) && code !== 'insufficient_quota',
      retryAfterMs: parseRetryAfter(apiError.headers),
      cause: error,
    });
  }
}

function dropNulls(record: Record<string, unknown>, keys: readonly string[]): void {
  for (const key of keys) if (record[key] === null) delete record[key];
}

function arrayOrEmpty(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * Native JSON Schema output is sent in strict mode (constrained decoding) unless the caller set `strict: false`;
 * the schema is rewritten to what strict mode accepts, and the answer is validated against the original later.
 */
function strictResponseFormat(format: unknown): unknown {
  const responseFormat = format as { type?: string; json_schema?: { strict?: boolean; schema?: Record<string, unknown> } } | undefined;
  if (responseFormat?.type !== 'json_schema' || responseFormat.json_schema?.strict === false || !responseFormat.json_schema?.schema) return format;
  return { ...responseFormat, json_schema: { ...responseFormat.json_schema, strict: true, schema: toStrictJsonSchema(responseFormat.json_schema.schema) } };
}

/**
 * Assistant messages sent back as they were returned carry our extension fields (`reasoning_details`, `parsed`, and
 * `reasoning_content`); strip what this provider would reject. Messages without them pass as they are, uncopied.
 */
function withoutReasoningState(messages: ChatCompletionCreateParamsBase['messages'], keepContent: boolean): ChatCompletionCreateParamsBase['messages'] {
  const carries = (message: object) => 'reasoning_details' in message || 'parsed' in message || (!keepContent && 'reasoning_content' in message);
  if (!messages.some((message) => message.role === 'assistant' && carries(message))) return messages;
  return messages.map((message) => {
    if (message.role !== 'assistant' || !carries(message)) return message;
    const { reasoning_details: _details, parsed: _parsed, reasoning_content: content, ...rest } = message as typeof message & {
      reasoning_details?: unknown;
      parsed?: unknown;
      reasoning_content?: unknown;
    };
    return (keepContent && content !== undefined ? { ...rest, reasoning_content: content } : rest) as typeof message;
  });
}

/** Maps every tool-call id to nine letters and digits, the same way each time so calls and results still pair up. */
function rewriteToolCallIds(messages: ChatCompletionCreateParamsBase['messages']): ChatCompletionCreateParamsBase['messages'] {
  const valid = /^[a-zA-Z0-9]{9}$/;
  const shorten = (id: string): string => (valid.test(id) ? id : nineCharId(id));
  return messages.map((message) => {
    if (message.role === 'tool') return { ...message, tool_call_id: shorten(message.tool_call_id) };
    if (message.role === 'assistant' && message.tool_calls) {
      return { ...message, tool_calls: message.tool_calls.map((toolCall) => ({ ...toolCall, id: shorten(toolCall.id) })) };
    }
    return message;
  });
}

function nineCharId(id: string): string {
  // FNV-1a over the id, written in base 36 and padded: deterministic, no crypto needed for a correlation id.
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index++) hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193) >>> 0;
  let second = hash ^ id.length;
  for (let index = id.length - 1; index >= 0; index--) second = Math.imul(second ^ id.charCodeAt(index), 0x01000193) >>> 0;
  return (hash.toString(36) + second.toString(36)).padEnd(9, '0').slice(0, 9);
}

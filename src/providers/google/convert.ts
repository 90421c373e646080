import { closestEffortLevel } from '../../reasoning.ts';
import { randomUUID } from 'node:crypto';
import type {
  Candidate,
  Content,
  FunctionCallingConfigMode,
  FunctionDeclaration,
  GenerateContentConfig,
  GenerateContentResponse,
  GenerateContentResponseUsageMetadata,
  Part,
  ThinkingConfig,
  ThinkingLevel,
  ToolConfig,
} from '@google/genai';
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { InvalidRequestError } from '../../errors.ts';
import type { CompletionChunk, CompletionChunkDelta, CompletionMessage, ReasoningDetail } from '../../types.ts';
import type { ProviderCall, ProviderCompletion } from '../provider.ts';

/**
 * Pure conversions between the OpenAI chat-completion shapes and Gemini's generateContent (providers.md §3):
 * request building, response and stream-chunk translation. No I/O; `google.ts` drives the SDK.
 */

/** Google's documented placeholder for a function call whose history never had a thought signature (§3.5). */
export const DUMMY_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/** Gemini accepts at most this many stop sequences. */
const MAX_STOP_SEQUENCES = 5;

/** Body fields this adapter translates (or that have no effect worth a warning when left at their default). */
const HANDLED = new Set([
  'model', 'messages', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'stop', 'seed',
  'presence_penalty', 'frequency_penalty', 'n', 'tools', 'tool_choice', 'parallel_tool_calls', 'response_format',
]);

export interface GeminiRequest {
  model: string;
  contents: Content[];
  config: GenerateContentConfig;
}

// ---------------------------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------------------------

/** The caller's OpenAI body as `generateContent` parameters; every dropped or converted parameter is warned about. */
export function toGeminiRequest(call: ProviderCall): GeminiRequest {
  const body = call.body as ChatCompletionCreateParamsBase & Record<string, unknown>;
  const config: GenerateContentConfig = {};
  const { systemParts, contents } = toContents(body.messages, call);
  if (systemParts.length > 0) config.systemInstruction = { parts: systemParts };

  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens != null) config.maxOutputTokens = maxTokens;
  if (body.temperature != null) config.temperature = body.temperature;
  if (body.top_p != null) config.topP = body.top_p;
  if (body.seed != null) config.seed = body.seed;
  if (body.presence_penalty != null) config.presencePenalty = body.presence_penalty;
  if (body.frequency_penalty != null) config.frequencyPenalty = body.frequency_penalty;
  if (body.n != null && body.n !== 1) config.candidateCount = body.n;
  if (body.stop != null) {
    const stops = typeof body.stop === 'string' ? [body.stop] : body.stop;
    if (stops.length > MAX_STOP_SEQUENCES) {
      call.warn({
        code: 'converted_parameter',
        param: 'stop',
        message: `Gemini takes at most ${MAX_STOP_SEQUENCES} stop sequences; only the first ${MAX_STOP_SEQUENCES} of ${stops.length} were sent.`,
      });
    }
    if (stops.length > 0) config.stopSequences = stops.slice(0, MAX_STOP_SEQUENCES);
  }

  applyTools(body, config, call);
  applyResponseFormat(body, config, call);
  const thinking = toThinkingConfig(call);
  if (thinking) config.thinkingConfig = thinking;
  // Thinking tokens count within maxOutputTokens: a cap at or below the budget would leave no room for the answer.
  const budget = thinking?.thinkingBudget ?? 0;
  if (maxTokens != null && budget > 0 && maxTokens <= budget) {
    config.maxOutputTokens = Math.min(call.model.max_output_tokens, budget + maxTokens);
    call.warn({
      code: 'converted_parameter',
      param: 'max_tokens',
      message: `Gemini counts thinking within maxOutputTokens; it was raised from ${maxTokens} to ${config.maxOutputTokens} to hold the ${budget}-token thinking budget.`,
    });
  }

  for (const [param, value] of Object.entries(body)) {
    if (HANDLED.has(param) || value == null || value === false) continue;
    call.warn({ code: 'unsupported_parameter', param, message: `Gemini has no equivalent of "${param}"; it was not sent.` });
  }
  return { model: body.model, contents, config };
}

type AssistantMessage = Extract<ChatCompletionMessageParam, { role: 'assistant' }> & { reasoning_details?: ReasoningDetail[] };

function toContents(messages: ChatCompletionMessageParam[], call: ProviderCall): { systemParts: Part[]; contents: Content[] } {
  const systemParts: Part[] = [];
  const contents: Content[] = [];
  /** tool_call_id → function name, from the assistant messages seen so far (Gemini needs the name on the result). */
  const toolNames = new Map<string, string>();
  const levelControl = call.model.reasoning?.control === 'level';
  /** The user turn that collects consecutive tool results, while it is the last turn. */
  let resultsTurn: Content | undefined;

  messages.forEach((message, index) => {
    const at = `messages[${index}]`;
    if (message.role === 'tool' || message.role === 'function') {
      const name = message.role === 'tool' ? toolNames.get(message.tool_call_id) : message.name;
      if (!name) {
        throw new InvalidRequestError(
          `${at} answers tool_call_id "${(message as { tool_call_id?: string }).tool_call_id}", which no earlier assistant message called. ` +
            'Gemini needs the function name of every tool result.',
          `${at}.tool_call_id`,
        );
      }
      const part: Part = {
        functionResponse: {
          ...(message.role === 'tool' ? { id: message.tool_call_id } : {}),
          name,
          response: toFunctionResponse(textOf(message.content)),
        },
      };
      if (resultsTurn && contents.at(-1) === resultsTurn) resultsTurn.parts!.push(part);
      else contents.push((resultsTurn = { role: 'user', parts: [part] }));
      return;
    }
    if (message.role === 'system' || message.role === 'developer') {
      const text = textOf(message.content);
      if (text) systemParts.push({ text });
      return;
    }
    if (message.role === 'user') {
      const parts = typeof message.content === 'string'
        ? [{ text: message.content }]
        : message.content.map((part, partIndex) => toUserPart(part, `${at}.content[${partIndex}]`));
      contents.push({ role: 'user', parts });
      return;
    }
    const parts = toModelParts(message as AssistantMessage, toolNames, levelControl, call, at);
    if (parts.length > 0) contents.push({ role: 'model', parts });
  });
  return { systemParts, contents };
}

function toModelParts(message: AssistantMessage, toolNames: Map<string, string>, levelControl: boolean, call: ProviderCall, at: string): Part[] {
  const parts: Part[] = [];
  const text = textOf(message.content);
  if (text) parts.push({ text });
  const calls: Array<{ id?: string; name: string; arguments: string }> = [];
  for (const toolCall of (message.tool_calls ?? []) as ChatCompletionMessageToolCall[]) {
    if (toolCall.type !== 'function') {
      throw new InvalidRequestError(`${at}: Gemini has no custom (free-form) tools; only function tool calls can be sent.`, `${at}.tool_calls`);
    }
    toolNames.set(toolCall.id, toolCall.function.name);
    calls.push({ id: toolCall.id, name: toolCall.function.name, arguments: toolCall.function.arguments });
  }
  if (message.function_call) calls.push({ name: message.function_call.name, arguments: message.function_call.arguments });
  for (const { id, name, arguments: args } of calls) {
    parts.push({ functionCall: { ...(id !== undefined ? { id } : {}), name, args: toArgs(args, call, at) } });
  }

  // Thought signatures travel back on the part that carried them: a function call's own, or the turn's first part.
  const details = (message.reasoning_details ?? [])
    .filter((detail): detail is ReasoningDetail & { signature: string } => detail?.format === 'google' && typeof detail.signature === 'string')
    // A function call's own signature first, so a turn-level one cannot take its place.
    .sort((a, b) => Number(a.tool_call_id === undefined) - Number(b.tool_call_id === undefined));
  for (const detail of details) {
    const unsigned = (part: Part) => part.thoughtSignature === undefined;
    const target = detail.tool_call_id !== undefined
      ? parts.find((part) => part.functionCall?.id === detail.tool_call_id)
      : parts.find((part) => !part.functionCall && unsigned(part)) ?? parts.find(unsigned);
    if (target) target.thoughtSignature = detail.signature;
    else if (detail.tool_call_id === undefined && parts.length === 0) parts.push({ text: '', thoughtSignature: detail.signature });
  }
  // Gemini 3 rejects a function call without its signature; a history from elsewhere gets the documented placeholder.
  const functionParts = parts.filter((part) => part.functionCall);
  if (levelControl && functionParts.length > 0 && !functionParts.some((part) => part.thoughtSignature)) {
    functionParts[0]!.thoughtSignature = DUMMY_THOUGHT_SIGNATURE;
  }
  return parts;
}

function toArgs(json: string, call: ProviderCall, at: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = json.trim() === '' ? {} : JSON.parse(json);
  } catch {
    parsed = undefined;
  }
  if (isPlainObject(parsed)) return parsed;
  call.warn({
    code: 'converted_parameter',
    param: `${at}.tool_calls`,
    message: `Gemini takes function-call arguments as a JSON object; "${json.slice(0, 60)}" was sent as { "arguments": … }.`,
  });
  return { arguments: parsed === undefined ? json : parsed };
}

/** A tool result as Gemini's `response` object: the JSON object itself, anything else as `{ output: text }`. */
function toFunctionResponse(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isPlainObject(parsed)) return parsed;
  } catch {
    // plain text
  }
  return { output: text };
}

function toUserPart(part: ChatCompletionContentPart, at: string): Part {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image_url':
      return mediaPart(part.image_url.url, 'image/jpeg', at);
    case 'input_audio':
      return { inlineData: { mimeType: `audio/${part.input_audio.format === 'mp3' ? 'mp3' : 'wav'}`, data: part.input_audio.data } };
    case 'file':
      if (part.file.file_data) return mediaPart(part.file.file_data, guessMimeType(part.file.filename ?? '') ?? 'application/pdf', at);
      throw new InvalidRequestError(`${at}: Gemini cannot read OpenAI file ids; send the file inline as file_data.`, at);
    default:
      throw new InvalidRequestError(`${at}: Gemini cannot take a "${(part as { type: string }).type}" content part.`, at);
  }
}

/** A data: URI becomes inline bytes; an http(s) or gs:// URL a file reference with a guessed MIME type. */
function mediaPart(url: string, fallbackMimeType: string, at: string): Part {
  const data = /^data:([^;,]*)((?:;[^,;]*)*),(.*)$/s.exec(url);
  if (data) {
    const [, mimeType, params, payload] = data as unknown as [string, string, string, string];
    const base64 = params.split(';').includes('base64') ? payload : Buffer.from(decodeURIComponent(payload)).toString('base64');
    return { inlineData: { mimeType: mimeType || fallbackMimeType, data: base64 } };
  }
  if (/^(https?|gs):\/\//i.test(url)) return { fileData: { mimeType: guessMimeType(url) ?? fallbackMimeType, fileUri: url } };
  throw new InvalidRequestError(`${at}: "${url.slice(0, 40)}…" is neither a data: URI nor an http(s) URL.`, at);
}

const MIME_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', heic: 'image/heic',
  heif: 'image/heif', pdf: 'application/pdf', mp3: 'audio/mp3', wav: 'audio/wav', mp4: 'video/mp4', txt: 'text/plain',
};

function guessMimeType(url: string): string | undefined {
  const path = url.split(/[?#]/)[0] ?? '';
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return extension ? MIME_TYPES[extension] : undefined;
}

function applyTools(body: ChatCompletionCreateParamsBase, config: GenerateContentConfig, call: ProviderCall): void {
  const declarations: FunctionDeclaration[] = [];
  for (const tool of body.tools ?? []) {
    if (tool.type !== 'function') {
      call.warn({ code: 'unsupported_parameter', param: 'tools', message: `Gemini has no custom (free-form) tools; "${tool.custom.name}" was not sent.` });
      continue;
    }
    const { name, description, parameters } = tool.function;
    declarations.push({ name, ...(description ? { description } : {}), ...(parameters ? { parametersJsonSchema: parameters } : {}) });
  }
  if (declarations.length > 0) config.tools = [{ functionDeclarations: declarations }];
  if (body.parallel_tool_calls === false) {
    call.warn({
      code: 'unsupported_parameter',
      param: 'parallel_tool_calls',
      message: 'Gemini cannot be told to call one function at a time; "parallel_tool_calls: false" was not sent.',
    });
  }
  if (body.tool_choice != null) {
    const toolConfig = toToolConfig(body.tool_choice, call);
    if (toolConfig) config.toolConfig = toolConfig;
  }
}

function toToolConfig(choice: ChatCompletionToolChoiceOption, call: ProviderCall): ToolConfig | undefined {
  const mode = (value: 'AUTO' | 'ANY' | 'NONE') => value as FunctionCallingConfigMode;
  if (choice === 'auto') return { functionCallingConfig: { mode: mode('AUTO') } };
  if (choice === 'required') return { functionCallingConfig: { mode: mode('ANY') } };
  if (choice === 'none') return { functionCallingConfig: { mode: mode('NONE') } };
  if (choice.type === 'function') return { functionCallingConfig: { mode: mode('ANY'), allowedFunctionNames: [choice.function.name] } };
  if (choice.type === 'allowed_tools') {
    const names = choice.allowed_tools.tools
      .map((tool) => (tool as { function?: { name?: unknown } }).function?.name)
      .filter((name): name is string => typeof name === 'string');
    // Gemini reads allowedFunctionNames only in ANY mode; "auto" over a subset has no equivalent.
    if (choice.allowed_tools.mode === 'required') return { functionCallingConfig: { mode: mode('ANY'), allowedFunctionNames: names } };
    call.warn({
      code: 'converted_parameter',
      param: 'tool_choice',
      message: 'Gemini can restrict the callable functions only when a call is required; "allowed_tools" in auto mode was sent as "auto".',
    });
    return { functionCallingConfig: { mode: mode('AUTO') } };
  }
  call.warn({ code: 'unsupported_parameter', param: 'tool_choice', message: 'Gemini has no custom (free-form) tools; tool_choice was not sent.' });
  return undefined;
}

function applyResponseFormat(body: ChatCompletionCreateParamsBase, config: GenerateContentConfig, call: ProviderCall): void {
  const format = body.response_format;
  if (!format || format.type === 'text') return;
  const { supports } = call.model;
  if (format.type === 'json_schema' && supports.structured_outputs) {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = format.json_schema.schema ?? { type: 'object' };
    return;
  }
  if (!supports.json_mode && !supports.structured_outputs) {
    call.warn({ code: 'unsupported_parameter', param: 'response_format', message: `${call.model.id} has no JSON mode; response_format was not sent.` });
    return;
  }
  config.responseMimeType = 'application/json';
  if (format.type === 'json_schema') {
    call.warn({
      code: 'converted_parameter',
      param: 'response_format',
      message: `${call.model.id} cannot enforce a JSON schema; JSON mode was used instead, so the schema is not guaranteed.`,
    });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reasoning
// ---------------------------------------------------------------------------------------------------------------


/** `call.reasoning` as Gemini's thinking config: a budget on 2.5 models, a level on Gemini 3, never both. */
export function toThinkingConfig(call: ProviderCall): ThinkingConfig | undefined {
  const reasoning = call.reasoning;
  if (!reasoning) return undefined;
  const facts = call.model.reasoning;
  const id = call.model.id;
  const warn = (code: string, message: string) => call.warn({ code, param: 'reasoning', message });

  if (facts?.control === 'budget') {
    const min = facts.min_budget ?? 0;
    const max = facts.max_budget ?? Number.MAX_SAFE_INTEGER;
    if (reasoning.effort === 'disabled') {
      if (facts.can_disable) return { thinkingBudget: 0 };
      warn('reasoning_not_disabled', `${id} cannot switch thinking off; it was sent the smallest budget, ${min} tokens.`);
      return { thinkingBudget: min, includeThoughts: true };
    }
    const budget = Math.min(max, Math.max(min, reasoning.budget));
    if (budget !== reasoning.budget) {
      warn('converted_parameter', `${id} takes a thinking budget of ${min}–${max} tokens; ${reasoning.budget} was sent as ${budget}.`);
    }
    return { thinkingBudget: budget, includeThoughts: true };
  }

  if (facts?.control === 'level' && facts.efforts?.length) {
    const levels = facts.efforts;
    let level: string;
    if (reasoning.effort === 'disabled') {
      level = levels[0]!;
      warn('reasoning_not_disabled', `${id} cannot switch thinking off; it was sent the lowest thinking level, "${level}".`);
    } else {
      level = closestEffortLevel(levels, reasoning.effort);
      if (level !== reasoning.effort) warn('converted_parameter', `${id} has no "${reasoning.effort}" thinking level; "${level}" was sent.`);
    }
    return { thinkingLevel: level.toUpperCase() as ThinkingLevel, includeThoughts: true };
  }

  warn('reasoning_not_configurable', `${id} on google takes no reasoning setting; the model used its default.`);
  return undefined;
}


// ---------------------------------------------------------------------------------------------------------------
// Response
// ---------------------------------------------------------------------------------------------------------------

type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

const FILTERED = new Set([
  'SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION',
  'IMAGE_OTHER',
]);

/** Gemini's finishReason in OpenAI terms; Gemini has no tool-call reason, so a function call makes it `tool_calls`. */
export function toFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (reason && FILTERED.has(reason)) return 'content_filter';
  if (reason === 'MAX_TOKENS' || reason === 'CONTINUATION') return 'length';
  return hasToolCalls ? 'tool_calls' : 'stop';
}

export function toUsage(usage: GenerateContentResponseUsageMetadata | undefined): CompletionUsage | undefined {
  if (!usage) return undefined;
  const prompt = (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0);
  const reasoning = usage.thoughtsTokenCount ?? 0;
  const completion = (usage.candidatesTokenCount ?? 0) + reasoning;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: usage.cachedContentTokenCount ?? 0 },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}

/** Why Gemini refused to look at the prompt, for `message.refusal`. */
function blockedPromptMessage(response: GenerateContentResponse): string | undefined {
  const feedback = response.promptFeedback;
  if (!feedback?.blockReason) return undefined;
  return `Gemini blocked the prompt (${feedback.blockReason})${feedback.blockReasonMessage ? `: ${feedback.blockReasonMessage}` : '.'}`;
}

export function synthesizedId(prefix: string): string {
  return `${prefix}${randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

/** What one part means in OpenAI terms. */
type PartEvent =
  | { kind: 'reasoning'; text: string; detail?: ReasoningDetail }
  | { kind: 'content'; text: string; detail?: ReasoningDetail }
  | { kind: 'tool_call'; call: { id: string; name: string; arguments: string }; detail?: ReasoningDetail }
  | { kind: 'signature'; detail: ReasoningDetail }
  | { kind: 'unsupported'; what: string };

function toPartEvent(part: Part): PartEvent {
  const signature = part.thoughtSignature;
  const detail = (toolCallId?: string): { detail?: ReasoningDetail } => signature
    ? { detail: { type: 'reasoning.encrypted', format: 'google', signature, ...(toolCallId !== undefined ? { tool_call_id: toolCallId } : {}) } }
    : {};
  if (part.functionCall) {
    const id = part.functionCall.id || synthesizedId('call_');
    return {
      kind: 'tool_call',
      call: { id, name: part.functionCall.name ?? '', arguments: JSON.stringify(part.functionCall.args ?? {}) },
      ...detail(id),
    };
  }
  if (typeof part.text === 'string' && (part.text !== '' || !signature)) {
    return { kind: part.thought ? 'reasoning' : 'content', text: part.text, ...detail() };
  }
  if (signature) return { kind: 'signature', detail: detail().detail! };
  const what = Object.keys(part).find((key) => (part as Record<string, unknown>)[key] != null) ?? 'empty';
  return { kind: 'unsupported', what };
}

/** A whole `GenerateContentResponse` as an OpenAI chat completion. */
export function toCompletion(response: GenerateContentResponse, model: string, onDropped: (what: string) => void): ProviderCompletion {
  const candidates = response.candidates ?? [];
  const choices: ProviderCompletion['choices'] = candidates.map((candidate, position) => {
    const message: CompletionMessage = { role: 'assistant', content: null, refusal: null };
    let content: string | undefined;
    let reasoning: string | undefined;
    const toolCalls: ChatCompletionMessageToolCall[] = [];
    const details: ReasoningDetail[] = [];
    for (const part of candidate.content?.parts ?? []) {
      const event = toPartEvent(part);
      if (event.kind === 'unsupported') {
        onDropped(event.what);
        continue;
      }
      if (event.detail) details.push(event.detail);
      if (event.kind === 'reasoning') reasoning = (reasoning ?? '') + event.text;
      else if (event.kind === 'content') content = (content ?? '') + event.text;
      else if (event.kind === 'tool_call') toolCalls.push({ id: event.call.id, type: 'function', function: { name: event.call.name, arguments: event.call.arguments } });
    }
    if (content !== undefined) message.content = content;
    if (reasoning !== undefined) message.reasoning_content = reasoning;
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    if (details.length > 0) message.reasoning_details = details;
    return {
      index: candidate.index ?? position,
      message,
      logprobs: null,
      finish_reason: toFinishReason(candidate.finishReason, toolCalls.length > 0),
    };
  });
  const blocked = candidates.length === 0 ? blockedPromptMessage(response) : undefined;
  if (blocked) {
    choices.push({ index: 0, message: { role: 'assistant', content: null, refusal: blocked }, logprobs: null, finish_reason: 'content_filter' });
  }
  const usage = toUsage(response.usageMetadata);
  return {
    id: response.responseId || synthesizedId('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices,
    ...(usage ? { usage } : {}),
  };
}

/** Turns the SDK's stream of `GenerateContentResponse` chunks into OpenAI chunks, one part at a time. */
export class StreamConverter {
  readonly #model: string;
  readonly #onDropped: (what: string) => void;
  readonly #created = Math.floor(Date.now() / 1000);
  #id: string | undefined;
  #usage: CompletionUsage | undefined;
  /** Per candidate index: tool calls emitted so far, and whether its finish chunk was sent. */
  readonly #choices = new Map<number, { toolCalls: number; finished: boolean }>();

  constructor(model: string, onDropped: (what: string) => void) {
    this.#model = model;
    this.#onDropped = onDropped;
  }

  convert(response: GenerateContentResponse): CompletionChunk[] {
    this.#id ??= response.responseId || synthesizedId('chatcmpl-');
    if (response.usageMetadata) this.#usage = toUsage(response.usageMetadata);
    const chunks: CompletionChunk[] = [];
    const candidates: Candidate[] = response.candidates ?? [];
    candidates.forEach((candidate, position) => chunks.push(...this.#candidateChunks(candidate, candidate.index ?? position)));
    const blocked = candidates.length === 0 ? blockedPromptMessage(response) : undefined;
    if (blocked && !this.#choices.get(0)?.finished) {
      chunks.push(...this.#open(0), this.#chunk(0, { refusal: blocked }));
      this.#choices.get(0)!.finished = true;
      chunks.push(this.#chunk(0, {}, 'content_filter'));
    }
    return chunks;
  }

  /** The closing chunks: a finish reason for any choice the stream left open, then the usage chunk. */
  /** Whether the stream ended before a finishReason (or a prompt block) closed every choice: it was cut off. */
  get truncated(): boolean {
    return this.#choices.size === 0 || [...this.#choices.values()].some((state) => !state.finished);
  }

  /** The closing usage chunk, once every choice has finished. */
  finish(): CompletionChunk[] {
    return this.#usage ? [{ ...this.#base(), choices: [], usage: this.#usage }] : [];
  }

  #candidateChunks(candidate: Candidate, index: number): CompletionChunk[] {
    const chunks = this.#open(index);
    const state = this.#choices.get(index)!;
    for (const part of candidate.content?.parts ?? []) {
      const event = toPartEvent(part);
      const details = 'detail' in event && event.detail ? { reasoning_details: [event.detail] } : {};
      if (event.kind === 'unsupported') this.#onDropped(event.what);
      else if (event.kind === 'reasoning') chunks.push(this.#chunk(index, { reasoning_content: event.text, ...details }));
      else if (event.kind === 'content') chunks.push(this.#chunk(index, { content: event.text, ...details }));
      else if (event.kind === 'signature') chunks.push(this.#chunk(index, details));
      else {
        const toolCall = { index: state.toolCalls++, id: event.call.id, type: 'function' as const, function: { name: event.call.name, arguments: event.call.arguments } };
        chunks.push(this.#chunk(index, { tool_calls: [toolCall], ...details }));
      }
    }
    if (candidate.finishReason && !state.finished) {
      state.finished = true;
      chunks.push(this.#chunk(index, {}, toFinishReason(candidate.finishReason, state.toolCalls > 0)));
    }
    return chunks;
  }

  /** The `{ role: 'assistant', content: '' }` chunk that opens each choice, the first time it is seen. */
  #open(index: number): CompletionChunk[] {
    if (this.#choices.has(index)) return [];
    this.#choices.set(index, { toolCalls: 0, finished: false });
    return [this.#chunk(index, { role: 'assistant', content: '' })];
  }

  #base(): Omit<CompletionChunk, 'choices'> {
    return { id: this.#id ?? synthesizedId('chatcmpl-'), object: 'chat.completion.chunk', created: this.#created, model: this.#model };
  }

  #chunk(index: number, delta: CompletionChunkDelta, finishReason: FinishReason | null = null): CompletionChunk {
    return { ...this.#base(), choices: [{ index, delta, logprobs: null, finish_reason: finishReason }] };
  }
}

// ---------------------------------------------------------------------------------------------------------------

function textOf(content: string | ReadonlyArray<{ type: string; text?: string; refusal?: string }> | null | undefined): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? part.refusal ?? '').join('');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

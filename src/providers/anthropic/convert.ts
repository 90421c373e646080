import { closestEffortLevel } from '../../reasoning.ts';
import type Anthropic from '@anthropic-ai/sdk';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { InvalidRequestError } from '../../errors.ts';
import type { CompletionChunk, CompletionChunkDelta, CompletionMessage, ReasoningDetail } from '../../types.ts';
import type { ProviderCall, ProviderCompletion } from '../provider.ts';

/**
 * Pure conversions between the OpenAI chat-completion shapes and Anthropic's Messages API (API version 2026-10-21,
 * the one `@anthropic-ai/sdk` 1.x speaks): the request, the response, and the streamed events.
 */

/**
 * `max_tokens` of a non-streaming call when the caller set none. Anthropic requires the field; the model's ceiling
 * (64k–128k) would let one answer run far past the per-attempt timeout, and the SDK estimates 128k tokens per hour,
 * so this is what fits in its 10-minute default (Anthropic's docs recommend streaming above it). Streams get the
 * model's ceiling.
 */
export const NON_STREAMING_MAX_TOKENS = 21_333;
/** Room for the visible answer when `max_tokens` has to grow to hold the thinking budget. */
const ANSWER_ROOM = 8_192;
/** The least answer room a thinking budget may leave below the model's output ceiling. */
const MIN_ANSWER_ROOM = 1_024;
const FORMAT = 'anthropic';

type Body = ChatCompletionCreateParamsBase & Record<string, unknown>;
type Params = Omit<Anthropic.MessageCreateParamsNonStreaming, 'stream'>;
type Block = Anthropic.ContentBlockParam;

/** OpenAI fields converted below; every other field present is dropped with a warning unless it is a no-op value. */
const HANDLED = new Set([
  'model', 'messages', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'stop', 'tools', 'tool_choice',
  'parallel_tool_calls', 'user', 'safety_identifier', 'response_format', 'service_tier',
]);
const NO_OP_VALUES: Record<string, unknown> = { n: 1, logprobs: false, store: false, frequency_penalty: 0, presence_penalty: 0 };

/** The caller's OpenAI body as an Anthropic Messages request (without `stream`). */
export function toAnthropicRequest(call: ProviderCall, streaming: boolean): Params {
  const body = call.body as Body;
  const { system, messages } = convertMessages(body.messages);
  const params: Params = { model: body.model, max_tokens: maxTokens(call, streaming), messages };
  if (system.length > 0) params.system = system;

  for (const param of ['temperature', 'top_p'] as const) {
    if (body[param] == null) continue;
    call.warn({
      code: 'unsupported_parameter',
      param,
      message: `Anthropic's API (version 2026-10-21) no longer accepts sampling parameters; "${param}" was not sent.`,
    });
  }
  const stops = body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
  const usable = stops.filter((stop) => stop.trim() !== '');
  if (usable.length < stops.length) {
    call.warn({ code: 'converted_parameter', param: 'stop', message: 'Anthropic rejects whitespace-only stop sequences; they were not sent.' });
  }
  if (usable.length > 0) params.stop_sequences = usable;

  if (body.tools?.length) {
    params.tools = body.tools.map((tool, index) => convertTool(tool, index, call));
    const choice = convertToolChoice(body.tool_choice, body.parallel_tool_calls);
    if (choice) params.tool_choice = choice;
  }
  const userId = body.safety_identifier ?? body.user;
  if (userId) params.metadata = { user_id: userId };
  applyResponseFormat(call, params);
  if (body.service_tier === 'auto' || body.service_tier === 'default') {
    params.service_tier = body.service_tier === 'auto' ? 'auto' : 'standard_only';
  } else if (body.service_tier != null) {
    call.warn({ code: 'unsupported_parameter', param: 'service_tier', message: `Anthropic has no "${body.service_tier}" service tier; it was not sent.` });
  }
  for (const [param, value] of Object.entries(body)) {
    if (HANDLED.has(param) || value == null || NO_OP_VALUES[param] === value) continue;
    call.warn({ code: 'unsupported_parameter', param, message: `Anthropic has no equivalent of "${param}"; it was not sent.` });
  }
  if (call.reasoning) applyReasoning(call, params);
  return params;
}

/** The caller's limit (capped at the model's), or the default: the model's ceiling when streaming. */
function maxTokens(call: ProviderCall, streaming: boolean): number {
  const ceiling = call.model.max_output_tokens;
  const asked = call.body.max_completion_tokens ?? call.body.max_tokens;
  if (asked == null) return streaming ? ceiling : Math.min(ceiling, NON_STREAMING_MAX_TOKENS);
  if (asked <= ceiling) return asked;
  const param = call.body.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens';
  call.warn({ code: 'converted_parameter', param, message: `${call.model.id} writes at most ${ceiling} tokens; ${param} ${asked} was lowered to ${ceiling}.` });
  return ceiling;
}

// ---------------------------------------------------------------------------------------------------------------
// Messages

interface Turn {
  role: 'user' | 'assistant';
  content: Block[];
}

/** System and developer messages become the top-level `system`; the rest become alternating user/assistant turns. */
export function convertMessages(messages: ChatCompletionMessageParam[]): { system: Anthropic.TextBlockParam[]; messages: Anthropic.MessageParam[] } {
  const system: Anthropic.TextBlockParam[] = [];
  const turns: Turn[] = [];
  const add = (role: Turn['role'], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    // Anthropic wants alternating turns: consecutive messages of one role (tool results and the user text after them) merge.
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  messages.forEach((message, index) => {
    const at = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        for (const text of textsOf(message.content)) if (text !== '') system.push({ type: 'text', text });
        break;
      case 'user':
        add('user', userBlocks(message.content, at));
        break;
      case 'assistant':
        add('assistant', assistantBlocks(message, at));
        break;
      case 'tool': {
        const texts = textsOf(message.content).filter((text) => text !== '');
        const result: Anthropic.ToolResultBlockParam = { type: 'tool_result', tool_use_id: toolUseId(message.tool_call_id) };
        if (typeof message.content === 'string') {
          if (message.content !== '') result.content = message.content;
        } else if (texts.length > 0) result.content = texts.map((text) => ({ type: 'text', text }));
        add('user', [result]);
        break;
      }
      default:
        throw new InvalidRequestError(
          `${at}: the legacy "function" role cannot be sent to Anthropic; send the result as a "tool" message with tool_call_id.`,
          `${at}.role`,
        );
    }
  });
  return { system, messages: turns.map(finishTurn) };
}

function finishTurn(turn: Turn): Anthropic.MessageParam {
  // Tool results must open the user turn that answers the tool calls.
  const content = turn.role === 'user'
    ? [...turn.content.filter((block) => block.type === 'tool_result'), ...turn.content.filter((block) => block.type !== 'tool_result')]
    : turn.content;
  const only = content.length === 1 ? content[0] : undefined;
  return { role: turn.role, content: only?.type === 'text' ? only.text : content };
}

function textsOf(content: string | Array<{ type: string; text?: string }> | null | undefined): string[] {
  if (content == null) return [];
  if (typeof content === 'string') return [content];
  return content.map((part) => (part.type === 'text' ? part.text ?? '' : ''));
}

function userBlocks(content: string | ChatCompletionContentPart[], at: string): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const blocks: Block[] = [];
  content.forEach((part, partIndex) => {
    const partAt = `${at}.content[${partIndex}]`;
    if (part.type === 'text') {
      if (part.text !== '') blocks.push({ type: 'text', text: part.text });
    } else if (part.type === 'image_url') blocks.push(imageBlock(part.image_url.url, partAt));
    else if (part.type === 'file') blocks.push(documentBlock(part.file, partAt));
    else throw new InvalidRequestError(`${partAt}: Anthropic does not take "${part.type}" content.`, partAt);
  });
  return blocks;
}

const DATA_URI = /^data:([^;,]+)(?:;[^,;]*)*;base64,(.*)$/s;
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;

function imageBlock(url: string, at: string): Anthropic.ImageBlockParam {
  const data = DATA_URI.exec(url);
  if (data) {
    const mediaType = data[1]!.toLowerCase() as (typeof IMAGE_TYPES)[number];
    if (!IMAGE_TYPES.includes(mediaType)) {
      throw new InvalidRequestError(`${at}: Anthropic takes JPEG, PNG, GIF and WebP images, not ${data[1]}.`, `${at}.image_url`);
    }
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: data[2]! } };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw new InvalidRequestError(`${at}.image_url.url must be an https URL or a base64 data: URI.`, `${at}.image_url`);
}

function documentBlock(file: ChatCompletionContentPart.File.File, at: string): Anthropic.DocumentBlockParam {
  const data = file.file_data ? DATA_URI.exec(file.file_data) : null;
  const title = file.filename ? { title: file.filename } : {};
  if (data?.[1] === 'application/pdf') return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: data[2]! }, ...title };
  if (data?.[1] === 'text/plain') {
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: Buffer.from(data[2]!, 'base64').toString('utf8') }, ...title };
  }
  throw new InvalidRequestError(
    `${at}: Anthropic takes files as base64 data: URIs of PDF or plain text in file.file_data (OpenAI file ids mean nothing to it).`,
    `${at}.file`,
  );
}

type AssistantMessage = ChatCompletionAssistantMessageParam & { reasoning_details?: ReasoningDetail[] };

function assistantBlocks(message: AssistantMessage, at: string): Block[] {
  // Thinking must travel back unmodified and first in the turn, or Anthropic rejects a tool loop with thinking on.
  const blocks: Block[] = restoredThinking(message.reasoning_details);
  if (typeof message.content === 'string') {
    if (message.content !== '') blocks.push({ type: 'text', text: message.content });
  } else if (message.content) {
    for (const part of message.content) {
      const text = part.type === 'text' ? part.text : part.refusal;
      if (text !== '') blocks.push({ type: 'text', text });
    }
  } else if (message.refusal) blocks.push({ type: 'text', text: message.refusal });
  if (message.function_call) {
    throw new InvalidRequestError(`${at}.function_call (legacy function calling) cannot be sent to Anthropic; use tool_calls.`, `${at}.function_call`);
  }
  message.tool_calls?.forEach((toolCall, callIndex) => {
    const callAt = `${at}.tool_calls[${callIndex}]`;
    if (toolCall.type !== 'function') throw new InvalidRequestError(`${callAt}: Anthropic takes only function tool calls.`, callAt);
    blocks.push({ type: 'tool_use', id: toolUseId(toolCall.id), name: toolCall.function.name, input: parseArguments(toolCall.function.arguments, `${callAt}.function.arguments`) });
  });
  return blocks;
}

function restoredThinking(details: ReasoningDetail[] | undefined): Block[] {
  const blocks: Block[] = [];
  for (const detail of details ?? []) {
    if (detail.format !== FORMAT) continue;
    if (detail.type === 'reasoning.text' && detail.signature) {
      blocks.push({ type: 'thinking', thinking: detail.text ?? '', signature: detail.signature });
    } else if (detail.type === 'reasoning.encrypted' && detail.data) blocks.push({ type: 'redacted_thinking', data: detail.data });
  }
  return blocks;
}

function parseArguments(json: string, at: string): Record<string, unknown> {
  if (json.trim() === '') return {};
  let input: unknown;
  try {
    input = JSON.parse(json);
  } catch (error) {
    throw new InvalidRequestError(`${at} is not valid JSON (${(error as Error).message}); Anthropic needs the arguments as an object.`, at);
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidRequestError(`${at} must be a JSON object; Anthropic tool inputs are objects.`, at);
  }
  return input as Record<string, unknown>;
}

/** Anthropic tool-use ids are `[a-zA-Z0-9_-]+`; ids from other providers are made to fit, the same way each time. */
function toolUseId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'tool_call';
}

// ---------------------------------------------------------------------------------------------------------------
// Tools, structured output, reasoning

function convertTool(tool: ChatCompletionTool, index: number, call: ProviderCall): Anthropic.Tool {
  if (tool.type !== 'function') throw new InvalidRequestError(`tools[${index}]: Anthropic takes only function tools.`, `tools[${index}]`);
  const { name, description, parameters, strict } = tool.function;
  const converted: Anthropic.Tool = {
    name,
    input_schema: (parameters ?? { type: 'object', properties: {} }) as Anthropic.Tool.InputSchema,
  };
  if (description) converted.description = description;
  if (strict && call.model.supports.structured_outputs) converted.strict = true;
  else if (strict) {
    call.warn({ code: 'unsupported_parameter', param: `tools[${index}].function.strict`, message: `${call.model.id} cannot enforce tool schemas; "strict" was not sent.` });
  }
  return converted;
}

function convertToolChoice(choice: ChatCompletionToolChoiceOption | undefined, parallel: boolean | undefined): Anthropic.ToolChoice | undefined {
  const single = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...single };
  if (typeof choice === 'object' && choice.type === 'function') return { type: 'tool', name: choice.function.name, ...single };
  if (choice === 'auto' || parallel === false) return { type: 'auto', ...single };
  return undefined;
}

function applyResponseFormat(call: ProviderCall, params: Params): void {
  const format = call.body.response_format;
  if (!format || format.type === 'text') return;
  if (format.type === 'json_schema' && call.model.supports.structured_outputs && format.json_schema.schema) {
    params.output_config = { ...params.output_config, format: { type: 'json_schema', schema: format.json_schema.schema } };
    return;
  }
  if (format.type === 'json_object') {
    // No JSON mode, and a schema-less object schema is not accepted: ask for it in the system prompt instead.
    params.system = [...(params.system as Anthropic.TextBlockParam[] | undefined ?? []), { type: 'text', text: JSON_OBJECT_INSTRUCTION }];
    call.warn({ code: 'converted_parameter', param: 'response_format', message: 'Anthropic has no JSON mode; the JSON answer was asked for in the system prompt.' });
    return;
  }
  call.warn({
    code: 'unsupported_parameter',
    param: 'response_format',
    message: `${call.model.id} has no native JSON-schema output on Anthropic; response_format was not sent.`,
  });
}

const JSON_OBJECT_INSTRUCTION = 'Answer with one JSON object only: no prose, no code fences.';

/** Claude ≤ 4.5 take a thinking budget; Claude ≥ 4.6 take adaptive thinking and an effort level. */
function applyReasoning(call: ProviderCall, params: Params): void {
  const facts = call.model.reasoning;
  const { effort, budget: asked } = call.reasoning!;
  const converted = (param: string, message: string) => call.warn({ code: 'converted_parameter', param, message });

  if (facts?.control === 'budget') {
    if (effort === 'disabled') {
      params.thinking = { type: 'disabled' };
      return;
    }
    const ceiling = call.model.max_output_tokens;
    const minimum = facts.min_budget ?? 1_024;
    const maximum = Math.min(facts.max_budget ?? Infinity, ceiling - MIN_ANSWER_ROOM);
    const budget = Math.max(minimum, Math.min(asked, maximum));
    if (budget !== asked) converted('reasoning', `${call.model.id} takes a thinking budget from ${minimum} to ${maximum} tokens; ${asked} became ${budget}.`);
    if (params.max_tokens <= budget) {
      const callerMax = call.body.max_completion_tokens ?? call.body.max_tokens;
      const raised = Math.min(ceiling, budget + (callerMax ?? ANSWER_ROOM));
      if (callerMax != null) {
        converted('max_tokens', `Anthropic counts thinking within max_tokens; it was raised from ${params.max_tokens} to ${raised} to hold the ${budget}-token thinking budget.`);
      }
      params.max_tokens = raised;
    }
    params.thinking = { type: 'enabled', budget_tokens: budget };
    relaxToolChoice(call, params);
    return;
  }
  if (facts?.control === 'level') {
    const levels = facts.efforts?.length ? facts.efforts : ['low', 'medium', 'high'];
    let level: string;
    if (effort === 'disabled') {
      if (facts.can_disable) {
        params.thinking = { type: 'disabled' };
        return;
      }
      level = levels[0]!;
      call.warn({ code: 'reasoning_not_disabled', param: 'reasoning', message: `${call.model.id} always thinks; it was sent the lowest effort, "${level}".` });
    } else {
      level = closestEffortLevel(levels, effort);
      if (level !== effort) converted('reasoning', `${call.model.id} has no "${effort}" effort; "${level}" was sent.`);
    }
    params.thinking = { type: 'adaptive' };
    params.output_config = { ...params.output_config, effort: level as NonNullable<Anthropic.OutputConfig['effort']> };
    relaxToolChoice(call, params);
    return;
  }
  call.warn({
    code: 'reasoning_not_configurable',
    param: 'reasoning',
    message: `${call.model.id} on anthropic takes no reasoning setting; the model used its default.`,
  });
}

/** With thinking on Anthropic accepts only `auto` or `none` tool choice. */
function relaxToolChoice(call: ProviderCall, params: Params): void {
  const choice = params.tool_choice;
  if (choice?.type !== 'any' && choice?.type !== 'tool') return;
  params.tool_choice = { type: 'auto', ...(choice.disable_parallel_tool_use ? { disable_parallel_tool_use: true } : {}) };
  call.warn({ code: 'converted_parameter', param: 'tool_choice', message: 'Anthropic cannot force a tool call while the model thinks; tool_choice was sent as "auto".' });
}

// ---------------------------------------------------------------------------------------------------------------
// Responses

type AnthropicUsage = Pick<Anthropic.Usage, 'output_tokens'> & {
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: Anthropic.OutputTokensDetails | null;
};

export function toUsage(usage: AnthropicUsage): CompletionUsage {
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  // Anthropic's input_tokens leave out the cached part; OpenAI's prompt_tokens include it.
  const prompt = (usage.input_tokens ?? 0) + cacheWrite + cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output_tokens,
    total_tokens: prompt + usage.output_tokens,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite },
    completion_tokens_details: { reasoning_tokens: usage.output_tokens_details?.thinking_tokens ?? 0 },
  };
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export function toFinishReason(reason: Anthropic.StopReason | null): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, stop_sequence, and pause_turn (a server-tool turn Anthropic paused; OpenAI has no equivalent).
      return 'stop';
  }
}

function refusalText(details: Anthropic.RefusalStopDetails | null, text: string | null): string {
  return details?.explanation ?? text ?? `The model declined to answer${details?.category ? ` (${details.category})` : ''}.`;
}

export function toCompletion(message: Anthropic.Message): ProviderCompletion {
  const texts: string[] = [];
  const thinking: string[] = [];
  const details: ReasoningDetail[] = [];
  const toolCalls: NonNullable<CompletionMessage['tool_calls']> = [];
  for (const block of message.content) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'thinking') {
      thinking.push(block.thinking);
      details.push({ type: 'reasoning.text', format: FORMAT, text: block.thinking, signature: block.signature });
    } else if (block.type === 'redacted_thinking') details.push({ type: 'reasoning.encrypted', format: FORMAT, data: block.data });
    else if (block.type === 'tool_use') {
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  const text = texts.length > 0 ? texts.join('') : null;
  const refused = message.stop_reason === 'refusal';
  const result: CompletionMessage = {
    role: 'assistant',
    content: refused ? null : text,
    refusal: refused ? refusalText(message.stop_details, text) : null,
  };
  if (toolCalls.length > 0) result.tool_calls = toolCalls;
  if (thinking.some((part) => part !== '')) result.reasoning_content = thinking.join('');
  if (details.length > 0) result.reasoning_details = details;
  return {
    id: message.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: message.model,
    choices: [{ index: 0, message: result, finish_reason: toFinishReason(message.stop_reason), logprobs: null }],
    usage: toUsage(message.usage),
  };
}

interface OpenBlock {
  type: string;
  text: string;
  signature?: string;
  data?: string;
  toolIndex?: number;
  argumentsSent?: boolean;
  input?: unknown;
}

/**
 * Turns Anthropic's stream events into OpenAI chunks. The role chunk is held back until the first chunk with
 * something in it, so a stream that fails before any content fails the attempt (and is retried) instead of
 * reaching the caller half-started.
 */
export class StreamConverter {
  #id = 'msg_unknown';
  #model: string;
  readonly #created = Math.floor(Date.now() / 1000);
  #usage: AnthropicUsage = { output_tokens: 0 };
  readonly #blocks = new Map<number, OpenBlock>();
  #toolCount = 0;
  #started = false;
  /** A message_delta with the stop reason arrived. */
  finished = false;

  constructor(model: string) {
    this.#model = model;
  }

  handle(event: Anthropic.RawMessageStreamEvent): CompletionChunk[] {
    switch (event.type) {
      case 'message_start':
        this.#id = event.message.id;
        this.#model = event.message.model;
        this.#usage = { ...event.message.usage };
        return [];
      case 'content_block_start':
        return this.#start(event.index, event.content_block);
      case 'content_block_delta':
        return this.#delta(event.index, event.delta);
      case 'content_block_stop':
        return this.#stop(event.index);
      case 'message_delta': {
        // message_delta usage is cumulative; null fields keep what message_start said.
        for (const [key, value] of Object.entries(event.usage)) if (value != null) (this.#usage as Record<string, unknown>)[key] = value;
        this.finished = true;
        const chunks: CompletionChunk[] = [];
        if (event.delta.stop_reason === 'refusal') chunks.push(...this.#emit({ refusal: refusalText(event.delta.stop_details, null) }));
        chunks.push(...this.#emit({}, toFinishReason(event.delta.stop_reason)));
        return chunks;
      }
      default:
        // message_stop, and event types this version does not know.
        return [];
    }
  }

  /** The closing chunk: empty choices and the usage of the whole message. */
  usageChunk(): CompletionChunk {
    return { ...this.#base(), choices: [], usage: toUsage(this.#usage) };
  }

  #start(index: number, block: Anthropic.RawContentBlockStartEvent['content_block']): CompletionChunk[] {
    if (block.type === 'text') {
      this.#blocks.set(index, { type: 'text', text: '' });
      return block.text ? this.#emit({ content: block.text }) : [];
    }
    if (block.type === 'thinking') {
      this.#blocks.set(index, { type: 'thinking', text: block.thinking, signature: block.signature });
      return block.thinking ? this.#emit({ reasoning_content: block.thinking }) : [];
    }
    if (block.type === 'redacted_thinking') {
      this.#blocks.set(index, { type: 'redacted_thinking', text: '', data: block.data });
      return [];
    }
    if (block.type === 'tool_use') {
      const toolIndex = this.#toolCount++;
      this.#blocks.set(index, { type: 'tool_use', text: '', toolIndex, input: block.input });
      return this.#emit({ tool_calls: [{ index: toolIndex, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] });
    }
    this.#blocks.set(index, { type: block.type, text: '' });
    return [];
  }

  #delta(index: number, delta: Anthropic.RawContentBlockDelta): CompletionChunk[] {
    const block = this.#blocks.get(index);
    if (delta.type === 'text_delta') return delta.text ? this.#emit({ content: delta.text }) : [];
    if (delta.type === 'thinking_delta') {
      if (block) block.text += delta.thinking;
      return delta.thinking ? this.#emit({ reasoning_content: delta.thinking }) : [];
    }
    if (delta.type === 'signature_delta') {
      if (block) block.signature = delta.signature;
      return [];
    }
    if (delta.type === 'input_json_delta' && block?.toolIndex !== undefined && delta.partial_json) {
      block.argumentsSent = true;
      return this.#emit({ tool_calls: [{ index: block.toolIndex, function: { arguments: delta.partial_json } }] });
    }
    return [];
  }

  #stop(index: number): CompletionChunk[] {
    const block = this.#blocks.get(index);
    if (block?.type === 'thinking') {
      return this.#emit({ reasoning_details: [{ type: 'reasoning.text', format: FORMAT, text: block.text, signature: block.signature ?? '' }] });
    }
    if (block?.type === 'redacted_thinking') return this.#emit({ reasoning_details: [{ type: 'reasoning.encrypted', format: FORMAT, data: block.data! }] });
    if (block?.toolIndex !== undefined && !block.argumentsSent) {
      // A tool without arguments streams no input_json_delta; callers still expect a JSON object.
      return this.#emit({ tool_calls: [{ index: block.toolIndex, function: { arguments: JSON.stringify(block.input ?? {}) } }] });
    }
    return [];
  }

  #emit(delta: CompletionChunkDelta, finishReason: FinishReason | null = null): CompletionChunk[] {
    const chunks: CompletionChunk[] = [];
    if (!this.#started) {
      this.#started = true;
      chunks.push(this.#chunk({ role: 'assistant', content: '' }, null));
    }
    chunks.push(this.#chunk(delta, finishReason));
    return chunks;
  }

  #chunk(delta: CompletionChunkDelta, finishReason: FinishReason | null): CompletionChunk {
    return { ...this.#base(), choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] };
  }

  #base(): Omit<CompletionChunk, 'choices'> {
    return { id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.#model };
  }
}

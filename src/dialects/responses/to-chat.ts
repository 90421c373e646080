import type { ResponseCreateParams, ResponseInputItem } from 'openai/resources/responses/responses';
import { InvalidRequestError } from '../../errors.ts';
import { sameNamedParameters } from '../../request/request-parameters.ts';
import { type FieldPath, noteUnknownFields, warnUnknownFields } from '../../request/unknown-fields.ts';
import type { CompletionMessageParam, CompletionRequest, CompletionWarning, ReasoningDetail } from '../../types.ts';
import { copySameNamedFields } from '../switchyard-fields.ts';
import { sentToolName } from './namespace-tools.ts';
import { decodeReasoningState } from './reasoning-state.ts';
import { applyTools } from './tools-to-chat.ts';
import { validateResponsesBody } from './validate.ts';

type Part = Exclude<Extract<CompletionMessageParam, { role: 'user' }>['content'], string>[number];
type ToolCall =
  | { id: string; type: 'function'; function: { name: string; arguments: string } }
  | { id: string; type: 'custom'; custom: { name: string; input: string } };
type Assistant = {
  role: 'assistant';
  content: string | null;
  tool_calls?: ToolCall[];
  reasoning_details?: ReasoningDetail[];
};

/**
 * A Responses API request as a chat completion request, after `history` (the messages of `previous_response_id`).
 * What chat cannot carry is named in `warnings` or refused with a 400 (built-in tools, stored prompts, background).
 */
export function responsesToChat(
  params: ResponseCreateParams,
  history: CompletionMessageParam[] = [],
): { request: CompletionRequest; warnings: CompletionWarning[] } {
  validateResponsesBody(params);
  return translateResponses(params, history);
}

/** `responsesToChat` of a body `validateResponsesBody` has checked. */
export function translateResponses(
  params: ResponseCreateParams,
  history: readonly CompletionMessageParam[],
): { request: CompletionRequest; warnings: CompletionWarning[] } {
  refuseUnsupported(params);
  const warnings: CompletionWarning[] = [];
  const messages: CompletionMessageParam[] = [];
  // Marked, so that a later call continuing this one leaves them out, as OpenAI does (stripped before sending).
  if (params.instructions)
    messages.push({ role: 'system', content: params.instructions, from_instructions: true } as never);
  for (const message of history) messages.push(message);
  inputMessages(params.input, messages, warnings);

  const request: CompletionRequest = { model: params.model as string, messages };
  if (params.max_output_tokens != null) request.max_completion_tokens = params.max_output_tokens;
  // temperature, top_p, parallel_tool_calls, metadata, user, service_tier, prompt_cache_key, … and Switchyard's own.
  copySameNamedFields('responses', params, request);
  if (params.top_logprobs != null) Object.assign(request, { logprobs: true, top_logprobs: params.top_logprobs });
  else if (params.include?.includes('message.output_text.logprobs')) request.logprobs = true;
  if (params.reasoning?.effort) request.reasoning_effort = params.reasoning.effort;
  applyTools(params, request, warnings);
  applyText(params.text, request);
  applyConfigurationUpdate(params.input, request);
  if (params.reasoning?.context === 'current_turn') earlierTurnsWithoutReasoning(messages);
  if (params.stream) Object.assign(request, { stream: true, stream_options: { include_usage: true } });
  warnAbout(params, warnings);
  return { request, warnings };
}

function refuseUnsupported(params: ResponseCreateParams): void {
  const refuse = (param: string, what: string) => {
    throw new InvalidRequestError(`"${param}": ${what} is not supported by this gateway.`, param);
  };
  if (params.background) refuse('background', 'running a response in the background');
  if (params.conversation) refuse('conversation', "OpenAI's stored conversations");
  if (params.prompt) refuse('prompt', "OpenAI's stored prompts (use a Switchyard deployment)");
}

/** What a chat completion cannot do as asked: said once, never silently left out. */
function warnAbout(params: ResponseCreateParams, warnings: CompletionWarning[]): void {
  const warn = (param: string, message: string) => warnings.push({ code: 'unsupported_parameter', param, message });
  if (params.store === false)
    warn('store', 'The call is recorded by the gateway as every call is; store: false does not change that.');
  if (params.truncation === 'auto')
    warn('truncation', 'Input is never truncated by the gateway; a prompt too long for the model fails.');
  if (params.max_tool_calls != null) warn('max_tool_calls', 'The gateway runs no tools, so it sets no limit on them.');
  for (const include of params.include ?? []) {
    if (include !== 'reasoning.encrypted_content' && include !== 'message.output_text.logprobs')
      warn('include', `"${include}" belongs to a built-in tool; nothing was added.`);
  }
  if ((params.stream_options as { include_obfuscation?: unknown } | null | undefined)?.include_obfuscation === true)
    warn('stream_options', 'The gateway adds no obfuscation to stream events: include_obfuscation was dropped.');
  // Named as chat names its unknown fields: the first 20, each name cut short, then a count.
  const unknown: FieldPath[] = [];
  const known = (field: string) => TAKEN.has(field) || SAME_NAMED.has(field);
  noteUnknownFields(params as Record<string, unknown>, known, () => [], { unknownField: (path) => unknown.push(path) });
  warnUnknownFields(unknown, { warn: (warning) => warnings.push(warning) });
}

/** The Responses fields translated here or read before (`previous_response_id`); the same-named ones are copied. */
const TAKEN = new Set([
  'model',
  'input',
  'instructions',
  'previous_response_id',
  'max_output_tokens',
  'top_logprobs',
  'reasoning',
  'tools',
  'tool_choice',
  'text',
  'stream',
  'stream_options',
  'include',
  'store',
  'truncation',
  'max_tool_calls',
  // Refused when asked for (refuseUnsupported); false or null is what is done.
  'background',
  'conversation',
  'prompt',
]);
const SAME_NAMED = new Set(sameNamedParameters('responses').map(([field]) => field));

/** `input` (a string, or items: messages, function calls and their outputs, reasoning items) onto `messages`. */
function inputMessages(
  input: ResponseCreateParams['input'],
  messages: CompletionMessageParam[],
  warnings: CompletionWarning[],
): void {
  if (input === undefined || input === null) return;
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input });
    return;
  }
  let assistant: Assistant | undefined;
  // The assistant turn being built: text, function calls and reasoning items arrive as separate items.
  const turn = (): Assistant => {
    if (!assistant) {
      assistant = { role: 'assistant', content: null };
      messages.push(assistant as CompletionMessageParam);
    }
    return assistant;
  };
  input.forEach((item, index) => {
    const at = `input[${index}]`;
    const type = (item as { type?: string }).type ?? 'message';
    if (type === 'message' && (item as { role?: string }).role === 'assistant') {
      const text = assistantText(item, at);
      const current = turn();
      current.content = (current.content ?? '') + text;
      return;
    }
    if (type === 'function_call' || type === 'custom_tool_call') {
      const call = item as { call_id: string; name: string; namespace?: string; arguments?: string; input?: string };
      const name = sentToolName(call);
      const current = turn();
      // Appended in place: one list per turn, however many calls it has.
      current.tool_calls ??= [];
      current.tool_calls.push(
        type === 'function_call'
          ? { id: call.call_id, type: 'function', function: { name, arguments: call.arguments! } }
          : { id: call.call_id, type: 'custom', custom: { name, input: call.input! } },
      );
      return;
    }
    // Their tools and settings are read apart (`applyTools`, `applyConfigurationUpdate`).
    if (type === 'additional_tools' || type === 'configuration_update') return;
    if (type === 'reasoning') {
      const reasoning = item as Extract<ResponseInputItem, { type: 'reasoning' }>;
      const details = decodeReasoningState(reasoning.encrypted_content);
      if (details.length === 0) return;
      const current = turn();
      current.reasoning_details ??= [];
      for (const detail of details) current.reasoning_details.push(detail);
      return;
    }
    assistant = undefined;
    if (type === 'message')
      messages.push(inputMessage(item as unknown as { role: string; content: unknown }, at, warnings));
    else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      const output = item as ResponseInputItem.FunctionCallOutput;
      messages.push({ role: 'tool', tool_call_id: String(output.call_id), content: outputText(output.output, at) });
    } else {
      throw new InvalidRequestError(
        `${at}: "${type}" items are not supported by this gateway (messages, function and custom tool calls and ` +
          'their outputs, and reasoning items are).',
        at,
      );
    }
  });
}

function inputMessage(
  item: { role: string; content: unknown },
  at: string,
  warnings: CompletionWarning[],
): CompletionMessageParam {
  const role = item.role as 'user' | 'system' | 'developer';
  if (typeof item.content === 'string') return { role, content: item.content } as CompletionMessageParam;
  if (!Array.isArray(item.content)) throw new InvalidRequestError(`${at}.content must be a string or a list.`, at);
  const parts = item.content.map((part: Record<string, unknown>, index: number) =>
    inputPart(part, `${at}.content[${index}]`),
  );
  if (role !== 'user') {
    // A system or developer message is text in chat: an image or file in it cannot be sent there.
    parts.forEach((part, index) => {
      if (part.type === 'text') return;
      const message = `A ${role} message takes text only: its ${part.type} part was dropped (send it as the user).`;
      warnings.push({ code: 'unsupported_parameter', param: `${at}.content[${index}]`, message });
    });
    const texts = parts.map((part) => (part.type === 'text' ? part.text : ''));
    return { role, content: texts.join('') } as CompletionMessageParam;
  }
  return { role, content: parts };
}

/** A content part of an input message; validate.ts has checked its shape. */
function inputPart(part: Record<string, unknown>, at: string): Part {
  const { type, text, image_url, detail, file_data, filename } = part;
  if (type === 'input_text' || type === 'output_text') return { type: 'text', text: text as string };
  if (type === 'input_image' && typeof image_url === 'string') {
    const level = detail === 'low' || detail === 'high' ? { detail: detail as 'low' | 'high' } : {};
    return { type: 'image_url', image_url: { url: image_url, ...level } };
  }
  if (type === 'input_file' && typeof file_data === 'string') {
    return { type: 'file', file: { file_data, ...(filename ? { filename: filename as string } : {}) } };
  }
  throw new InvalidRequestError(
    `${at}: "${String(type)}" content ${part.file_id ? 'by file id ' : ''}is not supported by this gateway ` +
      '(input_text, input_image by URL or data URI, and input_file with file_data are).',
    at,
  );
}

function assistantText(item: unknown, at: string): string {
  const content = (item as { content: unknown }).content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw new InvalidRequestError(`${at}.content must be a string or a list.`, at);
  return content
    .map((part: { type: string; text?: string; refusal?: string }) => part.text ?? part.refusal ?? '')
    .join('');
}

function outputText(output: unknown, at: string): string {
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) throw new InvalidRequestError(`${at}.output must be a string or a list.`, at);
  return output
    .map((part: { type: string; text?: string }, index: number) => {
      if (part.type !== 'input_text') {
        throw new InvalidRequestError(
          `${at}.output[${index}]: a function output is sent to every provider as text; "${part.type}" is not.`,
          at,
        );
      }
      return part.text ?? '';
    })
    .join('');
}

/** The last `configuration_update` item of the input: its reasoning effort and text format hold for this answer. */
function applyConfigurationUpdate(input: ResponseCreateParams['input'], request: CompletionRequest): void {
  if (!Array.isArray(input)) return;
  const update = input.findLast((item) => item.type === 'configuration_update');
  if (update?.type !== 'configuration_update') return;
  if (update.reasoning?.effort) request.reasoning_effort = update.reasoning.effort;
  if (update.text?.format) applyText({ format: update.text.format }, request);
}

/**
 * `reasoning.context: "current_turn"`: the reasoning of turns before the last user message is not sent back (that of
 * the current turn is, as a tool loop needs it).
 */
function earlierTurnsWithoutReasoning(messages: CompletionMessageParam[]): void {
  const lastUser = messages.findLastIndex((message) => message.role === 'user');
  for (let index = 0; index < lastUser; index++) {
    const { reasoning_details: details, ...rest } = messages[index] as { reasoning_details?: unknown };
    if (details) messages[index] = rest as CompletionMessageParam;
  }
}

function applyText(text: ResponseCreateParams['text'], request: CompletionRequest): void {
  const format = text?.format;
  if (format?.type === 'json_object') request.response_format = { type: 'json_object' };
  else if (format?.type === 'json_schema') {
    request.response_format = {
      type: 'json_schema',
      json_schema: {
        name: format.name,
        schema: format.schema,
        ...(format.strict != null ? { strict: format.strict } : {}),
        ...(format.description ? { description: format.description } : {}),
      },
    };
  }
  if (text?.verbosity) request.verbosity = text.verbosity;
}

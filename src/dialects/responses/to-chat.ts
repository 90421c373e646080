import type { ResponseCreateParams } from 'openai/resources/responses/responses';
import { InvalidRequestError } from '../../errors.ts';
import { sameNamedParameters } from '../../request/request-parameters.ts';
import { type FieldPath, noteUnknownFields, warnUnknownFields } from '../../request/unknown-fields.ts';
import type { CompletionMessageParam, CompletionRequest, CompletionWarning } from '../../types.ts';
import { copySameNamedFields } from '../switchyard-fields.ts';
import { inputMessages } from './input-items.ts';
import { applyTools } from './tools-to-chat.ts';
import { validateResponsesBody } from './validate.ts';

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

import { InvalidRequestError } from './errors.ts';
import { assertSchemaLimits } from './structured-output/schema-limits.ts';
import type { CompletionRequest } from './types.ts';

/**
 * Checks a chat-completion request before anything else happens, so a bad request fails fast with a 400 that
 * names the parameter and says what to send instead. Hand-written rather than schema-driven: it runs on every call.
 */
export function validateRequest(request: unknown): asserts request is CompletionRequest {
  if (!isObject(request)) fail('The request must be a JSON object.', null);
  for (const key of Object.keys(request)) {
    if (!KNOWN_PARAMS.has(key)) {
      fail(`Unrecognized request parameter "${key}". Supported: the OpenAI chat-completion parameters plus metadata, input, reasoning and fallbacks.`, key);
    }
  }
  if (typeof request.model !== 'string' || request.model.trim() === '') {
    fail('"model" is required: a model id such as "gpt-4o-latest" (listModels() lists them) or "switchyard/deployment/<id>".', 'model');
  }
  if (request.messages !== undefined) validateMessages(request.messages);

  optionalBoolean(request, 'stream');
  if (request.stream_options != null) {
    if (!isObject(request.stream_options)) fail('"stream_options" must be an object such as { "include_usage": true }.', 'stream_options');
    optionalBoolean(request.stream_options, 'include_usage', 'stream_options.include_usage');
  }
  optionalNumber(request, 'temperature', 0, 2);
  optionalNumber(request, 'top_p', 0, 1);
  optionalNumber(request, 'presence_penalty', -2, 2);
  optionalNumber(request, 'frequency_penalty', -2, 2);
  optionalInteger(request, 'max_tokens', 1);
  optionalInteger(request, 'max_completion_tokens', 1);
  optionalInteger(request, 'n', 1, 128);
  optionalInteger(request, 'seed', Number.MIN_SAFE_INTEGER);
  optionalInteger(request, 'top_logprobs', 0, 20);
  optionalBoolean(request, 'logprobs');
  optionalBoolean(request, 'parallel_tool_calls');
  if (request.stop != null && typeof request.stop !== 'string' && !isStringArray(request.stop)) {
    fail('"stop" must be a string or an array of strings.', 'stop');
  }
  if (request.metadata != null) {
    if (!isObject(request.metadata)) fail('"metadata" must be an object of string values.', 'metadata');
    for (const [key, value] of Object.entries(request.metadata)) {
      if (typeof value !== 'string') fail(`metadata.${key} must be a string (got ${typeof value}).`, `metadata.${key}`);
    }
  }
  if (request.structured_output_fallback != null && typeof request.structured_output_fallback !== 'string') {
    fail('"structured_output_fallback" must be a model id.', 'structured_output_fallback');
  }
  if (request.fallbacks != null && !isStringArray(request.fallbacks)) {
    fail('"fallbacks" must be an array of model ids.', 'fallbacks');
  }
  validateTools(request);
  validateResponseFormat(request.response_format);
  validateReasoning(request);
}

const KNOWN_PARAMS = new Set([
  // OpenAI chat-completion parameters (openai-node's ChatCompletionCreateParams).
  'messages', 'model', 'audio', 'frequency_penalty', 'function_call', 'functions', 'logit_bias', 'logprobs',
  'max_completion_tokens', 'max_tokens', 'metadata', 'modalities', 'moderation', 'n', 'parallel_tool_calls',
  'prediction', 'presence_penalty', 'prompt_cache_key', 'prompt_cache_options', 'prompt_cache_retention',
  'reasoning_effort', 'response_format', 'safety_identifier', 'seed', 'service_tier', 'stop', 'store', 'stream',
  'stream_options', 'temperature', 'tool_choice', 'tools', 'top_logprobs', 'top_p', 'user', 'verbosity',
  'web_search_options',
  // Switchyard's.
  'input', 'reasoning', 'fallbacks', 'structured_output_fallback',
]);

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
const PART_TYPES = new Set(['text', 'image_url', 'input_audio', 'file', 'refusal']);

function validateMessages(messages: unknown): void {
  if (!Array.isArray(messages)) fail('"messages" must be an array of { role, content } objects.', 'messages');
  messages.forEach((message: unknown, index) => {
    const at = `messages[${index}]`;
    if (!isObject(message)) fail(`${at} must be an object with "role" and "content".`, at);
    if (typeof message.role !== 'string' || !ROLES.has(message.role)) {
      fail(`${at}.role must be one of system, developer, user, assistant, tool (got ${JSON.stringify(message.role)}).`, `${at}.role`);
    }
    const content = message.content;
    if (message.role === 'assistant') {
      if (content == null && message.tool_calls == null && message.function_call == null && message.refusal == null) {
        fail(`${at}: an assistant message needs "content" or "tool_calls".`, `${at}.content`);
      }
      if (message.tool_calls != null) validateToolCalls(message.tool_calls, `${at}.tool_calls`);
    } else if (content == null) {
      fail(`${at}.content is required for a ${message.role} message.`, `${at}.content`);
    }
    if (message.role === 'tool' && typeof message.tool_call_id !== 'string') {
      fail(`${at}.tool_call_id is required: the id of the assistant tool call this message answers.`, `${at}.tool_call_id`);
    }
    if (content == null || typeof content === 'string') return;
    if (!Array.isArray(content)) fail(`${at}.content must be a string or an array of content parts.`, `${at}.content`);
    content.forEach((part: unknown, partIndex) => {
      const partAt = `${at}.content[${partIndex}]`;
      if (!isObject(part) || typeof part.type !== 'string' || !PART_TYPES.has(part.type)) {
        fail(`${partAt} must be a content part with type text, image_url, input_audio or file.`, partAt);
      }
      if (part.type === 'text' && typeof part.text !== 'string') fail(`${partAt}.text must be a string.`, `${partAt}.text`);
      if (part.type === 'image_url' && !(isObject(part.image_url) && typeof part.image_url.url === 'string')) {
        fail(`${partAt}.image_url must be { "url": "https://… or data:image/…;base64,…" }.`, `${partAt}.image_url`);
      }
    });
  });
}

function validateToolCalls(toolCalls: unknown, at: string): void {
  if (!Array.isArray(toolCalls)) fail(`${at} must be an array.`, at);
  toolCalls.forEach((toolCall: unknown, index) => {
    const callAt = `${at}[${index}]`;
    if (!isObject(toolCall) || typeof toolCall.id !== 'string' || !isObject(toolCall.function)) {
      fail(`${callAt} must be { id, type: "function", function: { name, arguments } }.`, callAt);
    }
    if (typeof toolCall.function.name !== 'string' || typeof toolCall.function.arguments !== 'string') {
      fail(`${callAt}.function needs a string "name" and a JSON string "arguments".`, `${callAt}.function`);
    }
  });
}

function validateTools(request: Record<string, unknown>): void {
  const names = new Set<string>();
  if (request.tools != null) {
    if (!Array.isArray(request.tools)) fail('"tools" must be an array of { type: "function", function: { name, parameters } }.', 'tools');
    request.tools.forEach((tool: unknown, index) => {
      const at = `tools[${index}]`;
      if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function)) {
        fail(`${at} must be { type: "function", function: { name, description?, parameters? } }.`, at);
      }
      const name = tool.function.name;
      if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
        fail(`${at}.function.name must be 1–64 letters, digits, "_" or "-" (got ${JSON.stringify(name)}).`, `${at}.function.name`);
      }
      if (names.has(name)) fail(`Two tools are named "${name}"; tool names must be unique.`, `${at}.function.name`);
      names.add(name);
      if (tool.function.parameters != null && !isObject(tool.function.parameters)) {
        fail(`${at}.function.parameters must be a JSON Schema object.`, `${at}.function.parameters`);
      }
      assertSchemaLimits(tool.function.parameters, `${at}.function.parameters`);
    });
  }
  const choice = request.tool_choice;
  if (choice == null) return;
  if (typeof choice === 'string') {
    if (!['none', 'auto', 'required'].includes(choice)) fail('"tool_choice" must be "none", "auto", "required" or { type: "function", function: { name } }.', 'tool_choice');
    if (choice === 'required' && names.size === 0) fail('tool_choice "required" needs at least one tool in "tools".', 'tool_choice');
    return;
  }
  if (!isObject(choice) || choice.type !== 'function' || !isObject(choice.function) || typeof choice.function.name !== 'string') {
    fail('"tool_choice" must be "none", "auto", "required" or { type: "function", function: { name } }.', 'tool_choice');
  }
  if (!names.has(choice.function.name)) fail(`tool_choice names "${choice.function.name}", which is not in "tools".`, 'tool_choice');
}

function validateResponseFormat(format: unknown): void {
  if (format == null) return;
  const hint = 'Use { type: "text" }, { type: "json_object" } or { type: "json_schema", json_schema: { name, schema, strict? } }.';
  if (!isObject(format) || typeof format.type !== 'string') fail(`"response_format" must be an object. ${hint}`, 'response_format');
  if (format.type === 'text' || format.type === 'json_object') return;
  if (format.type !== 'json_schema') fail(`response_format.type "${format.type}" is not supported. ${hint}`, 'response_format.type');
  const spec = format.json_schema;
  if (!isObject(spec)) fail(`response_format.json_schema is required with type "json_schema". ${hint}`, 'response_format.json_schema');
  if (typeof spec.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(spec.name)) {
    fail('response_format.json_schema.name must be 1–64 letters, digits, "_" or "-".', 'response_format.json_schema.name');
  }
  if (spec.strict != null && typeof spec.strict !== 'boolean') fail('response_format.json_schema.strict must be a boolean.', 'response_format.json_schema.strict');
  if (!isObject(spec.schema)) fail('response_format.json_schema.schema must be a JSON Schema object.', 'response_format.json_schema.schema');
  assertSchemaLimits(spec.schema, 'response_format.json_schema.schema');
}

const EFFORTS = ['disabled', 'low', 'medium', 'high'];

function validateReasoning(request: Record<string, unknown>): void {
  const effort = request.reasoning_effort;
  if (effort != null && !['low', 'medium', 'high'].includes(effort as string)) {
    fail(
      `reasoning_effort must be "low", "medium" or "high" (got ${JSON.stringify(effort)}). ` +
        'To turn reasoning off or set a token budget use reasoning: { effort: "disabled" } or reasoning: { budget: <tokens> }.',
      'reasoning_effort',
    );
  }
  const reasoning = request.reasoning;
  if (reasoning == null) return;
  if (!isObject(reasoning)) fail('"reasoning" must be { budget: <tokens> } or { effort: "disabled" | "low" | "medium" | "high" }.', 'reasoning');
  const hasBudget = reasoning.budget !== undefined;
  const hasEffort = reasoning.effort !== undefined;
  if (hasBudget && hasEffort) fail('reasoning takes either "budget" or "effort", not both.', 'reasoning');
  if (!hasBudget && !hasEffort) fail('"reasoning" needs "budget" (tokens) or "effort" ("disabled", "low", "medium", "high").', 'reasoning');
  for (const key of Object.keys(reasoning)) {
    if (key !== 'budget' && key !== 'effort') fail(`Unknown field reasoning.${key}; reasoning takes "budget" or "effort".`, `reasoning.${key}`);
  }
  if (hasBudget && !(Number.isInteger(reasoning.budget) && (reasoning.budget as number) >= 0)) {
    fail(`reasoning.budget must be a whole number of tokens ≥ 0 (got ${JSON.stringify(reasoning.budget)}).`, 'reasoning.budget');
  }
  if (hasEffort && !EFFORTS.includes(reasoning.effort as string)) {
    fail(`reasoning.effort must be one of ${EFFORTS.join(', ')} (got ${JSON.stringify(reasoning.effort)}).`, 'reasoning.effort');
  }
}

function optionalNumber(object: Record<string, unknown>, key: string, min: number, max: number): void {
  const value = object[key];
  if (value == null) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    fail(`"${key}" must be a number from ${min} to ${max} (got ${JSON.stringify(value)}).`, key);
  }
}

function optionalInteger(object: Record<string, unknown>, key: string, min: number, max = Number.MAX_SAFE_INTEGER): void {
  const value = object[key];
  if (value == null) return;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    fail(`"${key}" must be a whole number ${min === Number.MIN_SAFE_INTEGER ? '' : range} (got ${JSON.stringify(value)}).`.replace('  ', ' '), key);
  }
}

function optionalBoolean(object: Record<string, unknown>, key: string, param = key): void {
  const value = object[key];
  if (value != null && typeof value !== 'boolean') fail(`"${param}" must be true or false (got ${JSON.stringify(value)}).`, param);
}

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function fail(message: string, param: string | null): never {
  throw new InvalidRequestError(message, param);
}

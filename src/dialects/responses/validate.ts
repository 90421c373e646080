import { OPENAI_EFFORTS } from '../../request/request-parameters.ts';
import {
  type Body,
  boolean,
  fail,
  integer,
  isRecord,
  list,
  name,
  oneOf,
  optional,
  record,
  string,
  strings,
} from '../check.ts';
import { checkSameNamedFields } from '../switchyard-fields.ts';

/**
 * A Responses API body checked before it is translated: every field the translation reads has the type it needs,
 * every list at most `MAX_ITEMS` entries, each failure a 400 naming the field. What is well formed but not
 * supported (built-in tools, item references, files by id) is refused by the translation itself, by name.
 */
export function validateResponsesBody(params: unknown): void {
  if (!isRecord(params)) fail('body', 'must be a JSON object (a Responses API request).');
  if (typeof params.model !== 'string' || params.model.trim() === '') fail('model', 'is required: a model id.');
  const input = params.input;
  if ((input === undefined || input === null) && params.previous_response_id == null && params.instructions == null)
    fail('input', 'is required: a string, or a list of items.');
  if (input !== undefined && input !== null && typeof input !== 'string') {
    const items = list(input, 'input');
    for (let index = 0; index < items.length; index++) inputItem(items[index], `input[${index}]`);
  }
  // temperature, top_p, parallel_tool_calls, metadata, user, service_tier, prompt_cache_key, … as chat checks them.
  checkSameNamedFields('responses', params);
  for (const key of ['instructions', 'previous_response_id', 'truncation']) optional(params, key, '', string);
  optional(params, 'max_output_tokens', '', (value, at) => integer(value, at, 1));
  optional(params, 'max_tool_calls', '', (value, at) => integer(value, at, 0));
  optional(params, 'top_logprobs', '', (value, at) => integer(value, at, 0));
  for (const key of ['stream', 'store']) optional(params, key, '', boolean);
  optional(params, 'include', '', strings);
  const reasoning = optional(params, 'reasoning', '', record);
  if (reasoning) {
    optional(reasoning, 'effort', 'reasoning', (value, at) => oneOf(value, at, OPENAI_EFFORTS));
    optional(reasoning, 'summary', 'reasoning', string);
    optional(reasoning, 'context', 'reasoning', (value, at) => oneOf(value, at, ['auto', 'current_turn', 'all_turns']));
  }
  const tools = optional(params, 'tools', '', list) ?? [];
  for (let index = 0; index < tools.length; index++) tool(tools[index], `tools[${index}]`);
  if (params.tool_choice != null) toolChoice(params.tool_choice);
  const text = optional(params, 'text', '', record);
  if (text) textConfig(text, 'text');
}

function inputItem(value: unknown, at: string): void {
  const item = record(value, at);
  const type = item.type === undefined ? 'message' : string(item.type, `${at}.type`);
  if (type === 'message') {
    if (item.role === undefined) fail(`${at}.role`, 'is required: "user", "assistant", "system" or "developer".');
    const role = oneOf(item.role, `${at}.role`, ['user', 'assistant', 'system', 'developer']);
    if (typeof item.content === 'string') return;
    const parts = list(item.content, `${at}.content`);
    for (let index = 0; index < parts.length; index++) contentPart(parts[index], `${at}.content[${index}]`, role);
  } else if (type === 'function_call' || type === 'custom_tool_call') {
    name(item.call_id, `${at}.call_id`);
    name(item.name, `${at}.name`);
    string(
      type === 'function_call' ? item.arguments : item.input,
      `${at}.${type === 'function_call' ? 'arguments' : 'input'}`,
    );
    optional(item, 'namespace', at, name);
  } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
    name(item.call_id, `${at}.call_id`);
    if (typeof item.output === 'string') return;
    const parts = list(item.output, `${at}.output`);
    for (let index = 0; index < parts.length; index++) {
      const part = record(parts[index], `${at}.output[${index}]`);
      const type = string(part.type, `${at}.output[${index}].type`);
      // An image or a file is checked as in a user message, where it is sent (input-items.ts).
      if (type === 'input_image' || type === 'input_file') contentPart(part, `${at}.output[${index}]`, 'user');
      else optional(part, 'text', `${at}.output[${index}]`, string);
    }
  } else if (type === 'reasoning') {
    optional(item, 'encrypted_content', at, string);
    optional(item, 'summary', at, list);
  } else if (type === 'additional_tools') {
    const tools = list(item.tools, `${at}.tools`);
    for (let index = 0; index < tools.length; index++) tool(tools[index], `${at}.tools[${index}]`);
  } else if (type === 'configuration_update') {
    const reasoning = optional(item, 'reasoning', at, record);
    if (reasoning)
      optional(reasoning, 'effort', `${at}.reasoning`, (value, path) => oneOf(value, path, OPENAI_EFFORTS));
    const text = optional(item, 'text', at, record);
    if (text) textConfig(text, `${at}.text`);
  }
}

function contentPart(value: unknown, at: string, role: string): void {
  const part = record(value, at);
  const type = string(part.type, `${at}.type`);
  if (role === 'assistant') {
    if (type === 'refusal') string(part.refusal, `${at}.refusal`);
    else if (type === 'output_text' || type === 'input_text') string(part.text, `${at}.text`);
    else fail(`${at}.type`, 'an assistant message holds "output_text" and "refusal" parts.');
  } else if (type === 'input_text' || type === 'output_text') string(part.text, `${at}.text`);
  else if (type === 'input_image') {
    optional(part, 'image_url', at, string);
    optional(part, 'detail', at, string);
  } else if (type === 'input_file') {
    optional(part, 'file_data', at, string);
    optional(part, 'filename', at, string);
  }
}

function tool(value: unknown, at: string): void {
  const item = record(value, at);
  const type = string(item.type, `${at}.type`);
  if (type === 'namespace') {
    name(item.name, `${at}.name`);
    optional(item, 'description', at, string);
    const tools = list(item.tools, `${at}.tools`);
    for (let index = 0; index < tools.length; index++) {
      const inner = `${at}.tools[${index}]`;
      oneOf(record(tools[index], inner).type, `${inner}.type`, ['function', 'custom']);
      tool(tools[index], inner);
    }
    return;
  }
  if (type !== 'function' && type !== 'custom') return;
  name(item.name, `${at}.name`);
  optional(item, 'description', at, string);
  if (type === 'function') {
    optional(item, 'parameters', at, record);
    optional(item, 'strict', at, boolean);
  } else {
    const format = optional(item, 'format', at, record);
    if (format?.type === 'grammar') {
      oneOf(format.syntax, `${at}.format.syntax`, ['lark', 'regex']);
      string(format.definition, `${at}.format.definition`);
    }
  }
}

function toolChoice(value: unknown): void {
  if (typeof value === 'string') {
    oneOf(value, 'tool_choice', ['none', 'auto', 'required']);
    return;
  }
  const choice = record(value, 'tool_choice');
  const type = string(choice.type, 'tool_choice.type');
  if (type === 'function' || type === 'custom') {
    name(choice.name, 'tool_choice.name');
    optional(choice, 'namespace', 'tool_choice', string);
  }
  if (type !== 'allowed_tools') return;
  oneOf(choice.mode, 'tool_choice.mode', ['auto', 'required']);
  const tools = list(choice.tools, 'tool_choice.tools');
  for (let index = 0; index < tools.length; index++) {
    const at = `tool_choice.tools[${index}]`;
    const tool = record(tools[index], at);
    // A built-in tool (`{ type: "image_generation" }`, `{ type: "mcp", server_label }`) has no name.
    const type = string(tool.type, `${at}.type`);
    if (type === 'function' || type === 'custom') {
      name(tool.name, `${at}.name`);
      optional(tool, 'namespace', at, string);
    }
  }
}

function textConfig(text: Body, at: string): void {
  optional(text, 'verbosity', at, string);
  const format = optional(text, 'format', at, record);
  if (!format) return;
  const type = oneOf(format.type, `${at}.format.type`, ['text', 'json_object', 'json_schema']);
  if (type !== 'json_schema') return;
  name(format.name, `${at}.format.name`);
  record(format.schema, `${at}.format.schema`);
  optional(format, 'strict', `${at}.format`, boolean);
  optional(format, 'description', `${at}.format`, string);
}

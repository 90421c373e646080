import {
  type Body,
  boolean,
  cacheControl,
  fail,
  integer,
  isRecord,
  list,
  name,
  number,
  oneOf,
  optional,
  record,
  string,
  strings,
} from '../check.ts';
import { checkSameNamedFields } from '../switchyard-fields.ts';

/**
 * A Messages API body checked before it is translated: every field the translation reads has the type it needs,
 * every list at most `MAX_ITEMS` entries, each failure a 400 naming the field. What is well formed but not
 * supported (server tools, file ids) is refused by the translation itself, with its own message.
 */
export function validateMessagesBody(params: unknown): void {
  if (!isRecord(params)) fail('body', 'must be a JSON object (a Messages API request).');
  const body = params;
  if (typeof body.model !== 'string' || body.model.trim() === '') fail('model', 'Field required: a model id.');
  if (body.max_tokens === undefined) fail('max_tokens', 'Field required.');
  integer(body.max_tokens, 'max_tokens', 1);
  if (body.messages === undefined) fail('messages', 'Field required.');
  const messages = list(body.messages, 'messages');
  for (let index = 0; index < messages.length; index++) message(messages[index], `messages[${index}]`);
  systemPrompt(body.system);
  const tools = optional(body, 'tools', '', list) ?? [];
  for (let index = 0; index < tools.length; index++) tool(tools[index], `tools[${index}]`);
  const choice = optional(body, 'tool_choice', '', record);
  if (choice) {
    const type = oneOf(choice.type, 'tool_choice.type', ['auto', 'any', 'tool', 'none']);
    if (type === 'tool') name(choice.name, 'tool_choice.name');
    optional(choice, 'disable_parallel_tool_use', 'tool_choice', boolean);
  }
  thinking(body.thinking);
  optional(body, 'context_management', '', record);
  const config = optional(body, 'output_config', '', record);
  if (config) {
    optional(config, 'effort', 'output_config', string);
    const format = optional(config, 'format', 'output_config', record);
    if (format) outputFormat(format, 'output_config.format');
  }
  const beta = optional(body, 'output_format', '', record);
  if (beta) outputFormat(beta, 'output_format');
  optional(body, 'stop_sequences', '', strings);
  const metadata = optional(body, 'metadata', '', record);
  if (metadata) optional(metadata, 'user_id', 'metadata', string);
  optional(body, 'service_tier', '', string);
  checkSameNamedFields('messages', body); // temperature, top_p and Switchyard's own, as chat checks them
  optional(body, 'top_k', '', number);
  optional(body, 'stream', '', boolean);
}

function outputFormat(format: Body, at: string): void {
  oneOf(format.type, `${at}.type`, ['json_schema']);
  record(format.schema, `${at}.schema`);
}

function message(value: unknown, at: string): void {
  const item = record(value, at);
  if (item.role === undefined) fail(`${at}.role`, 'Field required: "user", "assistant" or "system".');
  // A system message among the turns (Claude Code sends its environment so): text, as the top-level system.
  const role = oneOf(item.role, `${at}.role`, ['user', 'assistant', 'system']);
  if (item.content === undefined) fail(`${at}.content`, 'Field required.');
  if (typeof item.content === 'string') return;
  const blocks = list(item.content, `${at}.content`);
  const check = role === 'user' ? userBlock : role === 'assistant' ? assistantBlock : systemBlock;
  for (let index = 0; index < blocks.length; index++) check(blocks[index], `${at}.content[${index}]`);
}

function typed(value: unknown, at: string): Body {
  const block = record(value, at);
  string(block.type, `${at}.type`);
  cacheControl(block, at);
  return block;
}

function userBlock(value: unknown, at: string): void {
  const block = typed(value, at);
  if (block.type === 'text') string(block.text, `${at}.text`);
  else if (block.type === 'image' || block.type === 'document') {
    const source = record(block.source, `${at}.source`);
    const type = string(source.type, `${at}.source.type`);
    if (type === 'base64') {
      string(source.media_type, `${at}.source.media_type`);
      string(source.data, `${at}.source.data`);
    } else if (type === 'url' && block.type === 'image') string(source.url, `${at}.source.url`);
    else if (type === 'text' && block.type === 'document') string(source.data, `${at}.source.data`);
    optional(block, 'title', at, string);
  } else if (block.type === 'tool_result') {
    name(block.tool_use_id, `${at}.tool_use_id`);
    optional(block, 'is_error', at, boolean);
    const content = block.content;
    if (content === undefined || content === null || typeof content === 'string') return;
    const inner = list(content, `${at}.content`);
    for (let index = 0; index < inner.length; index++) {
      const part = typed(inner[index], `${at}.content[${index}]`);
      if (part.type === 'text') string(part.text, `${at}.content[${index}].text`);
      else if (part.type === 'tool_reference') name(part.tool_name, `${at}.content[${index}].tool_name`);
      // Sent in the user message after the tool results, so checked as there.
      else if (part.type === 'image' || part.type === 'document') userBlock(part, `${at}.content[${index}]`);
    }
  }
}

function assistantBlock(value: unknown, at: string): void {
  const block = typed(value, at);
  if (block.type === 'text') string(block.text, `${at}.text`);
  else if (block.type === 'thinking') {
    string(block.thinking, `${at}.thinking`);
    string(block.signature, `${at}.signature`);
  } else if (block.type === 'redacted_thinking') string(block.data, `${at}.data`);
  else if (block.type === 'tool_use') {
    name(block.id, `${at}.id`);
    name(block.name, `${at}.name`);
    if (block.input !== undefined) record(block.input, `${at}.input`);
  }
}

function systemPrompt(system: unknown): void {
  if (system === undefined || system === null || typeof system === 'string') return;
  const blocks = list(system, 'system');
  for (let index = 0; index < blocks.length; index++) systemBlock(blocks[index], `system[${index}]`);
}

function systemBlock(value: unknown, at: string): void {
  const block = typed(value, at);
  oneOf(block.type, `${at}.type`, ['text']);
  string(block.text, `${at}.text`);
}

function tool(value: unknown, at: string): void {
  const item = record(value, at);
  cacheControl(item, at);
  // A server tool has a type of its own and no input_schema: the translation refuses it by name.
  if (!('input_schema' in item) && typeof item.type === 'string' && item.type !== 'custom') return;
  name(item.name, `${at}.name`);
  record(item.input_schema, `${at}.input_schema`);
  optional(item, 'type', at, string);
  optional(item, 'description', at, string);
  optional(item, 'strict', at, boolean);
  optional(item, 'defer_loading', at, boolean);
}

function thinking(value: unknown): void {
  if (value === undefined || value === null) return;
  const config = record(value, 'thinking');
  const type = oneOf(config.type, 'thinking.type', ['enabled', 'disabled', 'adaptive', 'between_tools']);
  if (type === 'enabled') integer(config.budget_tokens, 'thinking.budget_tokens', 1);
  optional(config, 'display', 'thinking', (display, at) => oneOf(display, at, ['summarized', 'omitted']));
}

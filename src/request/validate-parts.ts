import { assertSchemaLimits } from '../structured-output/schema-limits.ts';
import { fail, isObject } from './parameter-checks.ts';
import {
  ALLOWED_TOOLS_FIELDS,
  type FieldNotes,
  isMessageField,
  isPartField,
  JSON_SCHEMA_FIELDS,
  NAME_ONLY,
  noteUnknownFields,
  RESPONSE_FORMAT_FIELDS,
  TOOL_CHOICE_FIELDS,
  TOOL_FIELDS,
  TOOL_SPEC_FIELDS,
} from './unknown-fields.ts';

/**
 * The checks of the request parameters that have structure: messages, tools, tool choice and response format.
 * Hand-written rather than schema-driven: they run on every call, and each failure names the exact place.
 */

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
const PART_TYPES = new Set(['text', 'image_url', 'input_audio', 'file', 'refusal']);

export function validateMessages(messages: unknown, notes?: FieldNotes): void {
  if (!Array.isArray(messages)) fail('"messages" must be an array of { role, content } objects.', 'messages');
  // Paths such as `messages[3].content[1]` are written only for the message that fails. Holes are skipped, as
  // `forEach` skips them.
  for (let index = 0; index < messages.length; index++) {
    if (!(index in messages)) continue;
    const message: unknown = messages[index];
    if (!isObject(message)) fail(`${at(index)} must be an object with "role" and "content".`, at(index));
    if (typeof message.role !== 'string' || !ROLES.has(message.role)) {
      fail(
        `${at(index)}.role must be one of system, developer, user, assistant, tool (got ` +
          `${JSON.stringify(message.role)}).`,
        `${at(index)}.role`,
      );
    }
    noteUnknownFields(message, isMessageField, () => ['messages', index], notes);
    const content = message.content;
    if (message.role === 'assistant') {
      if (content == null && message.tool_calls == null && message.function_call == null && message.refusal == null) {
        fail(`${at(index)}: an assistant message needs "content" or "tool_calls".`, `${at(index)}.content`);
      }
      if (message.tool_calls != null) validateToolCalls(message.tool_calls, index);
    } else if (content == null) {
      fail(`${at(index)}.content is required for a ${message.role} message.`, `${at(index)}.content`);
    }
    if (message.cache_control !== undefined && !isCacheControl(message.cache_control))
      failCacheControl(message.cache_control, `${at(index)}.cache_control`);
    if (message.role === 'tool' && typeof message.tool_call_id !== 'string') {
      fail(
        `${at(index)}.tool_call_id is required: the id of the assistant tool call this message answers.`,
        `${at(index)}.tool_call_id`,
      );
    }
    if (content == null || typeof content === 'string') continue;
    if (!Array.isArray(content))
      fail(`${at(index)}.content must be a string or an array of content parts.`, `${at(index)}.content`);
    for (let partIndex = 0; partIndex < content.length; partIndex++)
      if (partIndex in content) validatePart(content[partIndex], index, partIndex, notes);
  }
}

function at(index: number): string {
  return `messages[${index}]`;
}

function partAt(index: number, partIndex: number): string {
  return `messages[${index}].content[${partIndex}]`;
}

function validatePart(part: unknown, index: number, partIndex: number, notes: FieldNotes | undefined): void {
  if (!isObject(part) || typeof part.type !== 'string' || !PART_TYPES.has(part.type)) {
    const path = partAt(index, partIndex);
    fail(`${path} must be a content part with type text, image_url, input_audio or file.`, path);
  }
  noteUnknownFields(part, isPartField, () => ['messages', index, 'content', partIndex], notes);
  if (part.type === 'text' && typeof part.text !== 'string') {
    const path = `${partAt(index, partIndex)}.text`;
    fail(`${path} must be a string.`, path);
  }
  if (part.cache_control !== undefined && !isCacheControl(part.cache_control))
    failCacheControl(part.cache_control, `${partAt(index, partIndex)}.cache_control`);
  if (part.type === 'image_url' && !(isObject(part.image_url) && typeof part.image_url.url === 'string')) {
    const hint = '{ "url": "https://… or data:image/…;base64,…" }';
    const path = `${partAt(index, partIndex)}.image_url`;
    fail(`${path} must be ${hint}.`, path);
  }
}

function validateToolCalls(toolCalls: unknown, messageIndex: number): void {
  if (!Array.isArray(toolCalls)) {
    const path = `${at(messageIndex)}.tool_calls`;
    fail(`${path} must be an array.`, path);
  }
  for (let index = 0; index < toolCalls.length; index++) {
    if (!(index in toolCalls)) continue;
    const toolCall: unknown = toolCalls[index];
    const callAt = () => `${at(messageIndex)}.tool_calls[${index}]`;
    // A call of a custom (free-form input) tool: its name and its input as written.
    if (isObject(toolCall) && toolCall.type === 'custom' && typeof toolCall.id === 'string') {
      const custom = toolCall.custom;
      if (!isObject(custom) || typeof custom.name !== 'string' || typeof custom.input !== 'string')
        fail(`${callAt()}.custom needs a string "name" and a string "input".`, `${callAt()}.custom`);
      continue;
    }
    if (!isObject(toolCall) || typeof toolCall.id !== 'string' || !isObject(toolCall.function)) {
      fail(
        `${callAt()} must be { id, type: "function", function: { name, arguments } } or ` +
          '{ id, type: "custom", custom: { name, input } }.',
        callAt(),
      );
    }
    if (typeof toolCall.function.name !== 'string' || typeof toolCall.function.arguments !== 'string') {
      fail(`${callAt()}.function needs a string "name" and a JSON string "arguments".`, `${callAt()}.function`);
    }
  }
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Function tools and OpenAI's custom (free-form input) tools; names are unique across both. */
export function validateTools(tools: unknown, notes?: FieldNotes): void {
  if (!Array.isArray(tools))
    fail('"tools" must be an array of { type: "function", function: { name, parameters } }.', 'tools');
  const names = new Set<string>();
  tools.forEach((tool: unknown, index) => {
    const at = `tools[${index}]`;
    const kind = isObject(tool) ? tool.type : undefined;
    const spec = kind === 'function' || kind === 'custom' ? (tool as Record<string, unknown>)[kind] : undefined;
    if (!isObject(spec)) {
      fail(
        `${at} must be { type: "function", function: { name, description?, parameters? } } or { type: "custom", ` +
          `custom: { name } }.`,
        at,
      );
    }
    noteUnknownFields(tool as Record<string, unknown>, TOOL_FIELDS, () => ['tools', index], notes);
    noteUnknownFields(spec, TOOL_SPEC_FIELDS[kind as string]!, () => ['tools', index, kind as string], notes);
    if ((tool as Record<string, unknown>).cache_control !== undefined)
      validateCacheControl((tool as Record<string, unknown>).cache_control, `${at}.cache_control`);
    const name = spec.name;
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
      fail(
        `${at}.${kind}.name must be 1–64 letters, digits, "_" or "-" (got ${JSON.stringify(name)}).`,
        `${at}.${kind}.name`,
      );
    }
    if (names.has(name)) fail(`Two tools are named "${name}"; tool names must be unique.`, `${at}.${kind}.name`);
    names.add(name);
    if (kind !== 'function') return;
    if (spec.parameters != null && !isObject(spec.parameters)) {
      fail(`${at}.function.parameters must be a JSON Schema object.`, `${at}.function.parameters`);
    }
    assertSchemaLimits(spec.parameters, `${at}.function.parameters`);
  });
}

const TOOL_CHOICE_HINT =
  '"tool_choice" must be "none", "auto", "required", { type: "function", function: { name } }, ' +
  '{ type: "custom", custom: { name } } or { type: "allowed_tools", allowed_tools: { mode, tools } }.';

/** `tool_choice` in every form OpenAI accepts, naming only tools that `tools` defines. */
export function validateToolChoice(choice: unknown, tools: unknown, notes?: FieldNotes): void {
  const names = new Set(
    (Array.isArray(tools) ? tools : [])
      .map((tool: unknown) => toolName(tool))
      .filter((name): name is string => typeof name === 'string'),
  );
  if (typeof choice === 'string') {
    if (!['none', 'auto', 'required'].includes(choice)) fail(TOOL_CHOICE_HINT, 'tool_choice');
    if (choice === 'required' && names.size === 0)
      fail('tool_choice "required" needs at least one tool in "tools".', 'tool_choice');
    return;
  }
  if (!isObject(choice)) fail(TOOL_CHOICE_HINT, 'tool_choice');
  noteUnknownFields(choice, TOOL_CHOICE_FIELDS, () => ['tool_choice'], notes);
  if (choice.type === 'allowed_tools') {
    const allowed = choice.allowed_tools;
    if (
      !isObject(allowed) ||
      (allowed.mode !== 'auto' && allowed.mode !== 'required') ||
      !Array.isArray(allowed.tools)
    ) {
      fail(
        'tool_choice.allowed_tools must be { mode: "auto" | "required", tools: [{ type: "function", function: { ' +
          'name } }, …] }.',
        'tool_choice.allowed_tools',
      );
    }
    noteUnknownFields(allowed, ALLOWED_TOOLS_FIELDS, () => ['tool_choice', 'allowed_tools'], notes);
    allowed.tools.forEach((tool: unknown, index: number) => {
      namedTool(tool, names, `tool_choice.allowed_tools.tools[${index}]`);
    });
    return;
  }
  namedTool(choice, names, 'tool_choice');
  const spec = choice[choice.type as string];
  if (isObject(spec)) noteUnknownFields(spec, NAME_ONLY, () => ['tool_choice', choice.type as string], notes);
}

function namedTool(choice: unknown, names: ReadonlySet<string>, at: string): void {
  const name = toolName(choice);
  if (typeof name !== 'string')
    fail(at === 'tool_choice' ? TOOL_CHOICE_HINT : `${at} must be { type: "function", function: { name } }.`, at);
  if (!names.has(name)) fail(`${at} names "${name}", which is not in "tools".`, at);
}

export function validateResponseFormat(format: unknown, notes?: FieldNotes): void {
  if (format == null) return;
  const hint =
    'Use { type: "text" }, { type: "json_object", schema? } or { type: "json_schema", json_schema: { name, schema, ' +
    'strict? } }.';
  if (!isObject(format) || typeof format.type !== 'string')
    fail(`"response_format" must be an object. ${hint}`, 'response_format');
  const fields = RESPONSE_FORMAT_FIELDS[format.type];
  if (!fields || !Object.hasOwn(RESPONSE_FORMAT_FIELDS, format.type))
    fail(`response_format.type "${format.type}" is not supported. ${hint}`, 'response_format.type');
  noteUnknownFields(format, fields, () => ['response_format'], notes);
  if (format.type === 'text') return;
  if (format.type === 'json_object') {
    // A schema beside json_object (instructor's JSON_SCHEMA mode, some providers' form) is honoured as json_schema.
    if (format.schema == null) return;
    if (!isObject(format.schema))
      fail('response_format.schema must be a JSON Schema object.', 'response_format.schema');
    assertSchemaLimits(format.schema, 'response_format.schema');
    return;
  }
  const spec = format.json_schema;
  if (!isObject(spec))
    fail(`response_format.json_schema is required with type "json_schema". ${hint}`, 'response_format.json_schema');
  noteUnknownFields(spec, JSON_SCHEMA_FIELDS, () => ['response_format', 'json_schema'], notes);
  if (typeof spec.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(spec.name)) {
    fail(
      'response_format.json_schema.name must be 1–64 letters, digits, "_" or "-".',
      'response_format.json_schema.name',
    );
  }
  if (spec.strict != null && typeof spec.strict !== 'boolean')
    fail('response_format.json_schema.strict must be a boolean.', 'response_format.json_schema.strict');
  if (!isObject(spec.schema))
    fail('response_format.json_schema.schema must be a JSON Schema object.', 'response_format.json_schema.schema');
  assertSchemaLimits(spec.schema, 'response_format.json_schema.schema');
}

/** The name of a function or custom tool (or a choice naming one), whatever else the value holds. */
function toolName(tool: unknown): unknown {
  if (!isObject(tool) || (tool.type !== 'function' && tool.type !== 'custom')) return undefined;
  const spec = tool[tool.type];
  return isObject(spec) ? spec.name : undefined;
}

/** A prompt-caching breakpoint: `{ type: "ephemeral", ttl?: "5m" | "1h" }`. */
function isCacheControl(value: unknown): boolean {
  const ttl = isObject(value) ? value.ttl : undefined;
  return isObject(value) && value.type === 'ephemeral' && (ttl === undefined || ttl === '5m' || ttl === '1h');
}

function failCacheControl(value: unknown, at: string): never {
  fail(`${at} must be { "type": "ephemeral", "ttl"?: "5m" | "1h" } (got ${JSON.stringify(value)}).`, at);
}

function validateCacheControl(value: unknown, at: string): void {
  if (!isCacheControl(value)) failCacheControl(value, at);
}

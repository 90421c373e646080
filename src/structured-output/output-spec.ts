import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { dropAddedNulls } from './drop-added-nulls.ts';
import {
  compileSchema,
  type JsonSchema,
  type SchemaValidator,
  type SchemaValidatorSetting,
} from './json-schema-validator.ts';
import { parseModelJson } from './parse-model-json.ts';
import { PARSE_VALUE } from './response-format.ts';
import { schemaFacts } from './schema-facts.ts';
import { type ModelSchema, modelSchemaOf, unwrapAnswer } from './schema-root.ts';

/** What the caller asked the answer to be, resolved once per request. */
export interface OutputSpec {
  kind: 'json_schema' | 'json_object';
  name: string;
  description?: string;
  /** The caller's schema: what the answer is validated against. */
  schema?: JsonSchema;
  /** What the model is asked to answer: the caller's schema, or it wrapped as `{ value }` (see `modelSchemaOf`). */
  modelSchema?: JsonSchema;
  wrapped?: boolean;
  /** The caller's `strict`; `false` opts out of constrained decoding where the provider has it. */
  strict?: boolean;
  validator?: SchemaValidator;
  /** openai-node's `zodResponseFormat` (and ours) carry a parser; its result becomes `message.parsed`. */
  parse?: (content: string) => unknown;
  /** Our own `zodResponseFormat`'s parser of the value already read from the answer (no second `JSON.parse`). */
  parseValue?: (value: unknown) => unknown;
}

export type OutputCheck = { ok: true; content: string; parsed: unknown } | { ok: false; errors: string[] };

/**
 * Resolves and checks `response_format`; `undefined` for plain text. A bad schema is a 400 naming where it is wrong.
 */
export function resolveOutputSpec(format: unknown, setting?: SchemaValidatorSetting): OutputSpec | undefined {
  const responseFormat = format as
    | { type?: string; json_schema?: Record<string, unknown>; $parseRaw?: (content: string) => unknown }
    | null
    | undefined;
  if (!responseFormat || responseFormat.type === 'text') return undefined;
  const objectSchema = (responseFormat as { schema?: JsonSchema }).schema;
  if (responseFormat.type === 'json_object' && objectSchema == null)
    return { kind: 'json_object', name: 'json_object' };
  // json_object with a schema (instructor's JSON_SCHEMA mode, Together's and Fireworks' form) is that schema's request.
  const spec = objectSchema ? { name: nameOf(objectSchema), schema: objectSchema } : responseFormat.json_schema!;
  const schema = spec.schema as JsonSchema;
  const validator = compileSchema(
    schema,
    objectSchema ? 'response_format.schema' : 'response_format.json_schema.schema',
    setting,
  );
  const model = modelSchemaFor(schema);
  const parseValue = (responseFormat as { [PARSE_VALUE]?: (value: unknown) => unknown })[PARSE_VALUE];
  return {
    kind: 'json_schema',
    name: spec.name as string,
    schema,
    modelSchema: model.schema,
    wrapped: model.wrapped,
    validator,
    ...(typeof spec.description === 'string' ? { description: spec.description } : {}),
    ...(typeof spec.strict === 'boolean' ? { strict: spec.strict } : {}),
    ...(typeof responseFormat.$parseRaw === 'function' ? { parse: responseFormat.$parseRaw.bind(responseFormat) } : {}),
    ...(typeof parseValue === 'function' ? { parseValue } : {}),
  };
}

/** The name a schema sent without one goes by: its `title` where that is a valid name (pydantic gives the class's). */
function nameOf(schema: JsonSchema): string {
  const title = (schema as { title?: unknown }).title;
  return typeof title === 'string' && /^[a-zA-Z0-9_-]{1,64}$/.test(title) ? title : 'response';
}

/** `modelSchemaOf`, kept with the schema's facts: the caller's own schema object when it is used unchanged. */
function modelSchemaFor(schema: JsonSchema): ModelSchema {
  const facts = schemaFacts(schema);
  if (!facts.model) {
    const model = modelSchemaOf(schema);
    facts.model = { schema: model.schema === schema ? undefined : model.schema, wrapped: model.wrapped };
  }
  return { schema: facts.model.schema ?? schema, wrapped: facts.model.wrapped };
}

/** The plain OpenAI `response_format` to send natively (without parser functions or brands). */
export function nativeResponseFormat(spec: OutputSpec): Record<string, unknown> {
  if (spec.kind === 'json_object') return { type: 'json_object' };
  return {
    type: 'json_schema',
    json_schema: {
      name: spec.name,
      schema: spec.modelSchema,
      ...(spec.description ? { description: spec.description } : {}),
      ...(spec.strict !== undefined ? { strict: spec.strict } : {}),
    },
  };
}

const JSON_OBJECT_INSTRUCTION: ChatCompletionMessageParam = {
  role: 'system',
  content: 'Answer with one JSON object only: no prose, no code fences.',
};

/**
 * The system instruction of the prompted path: the schema (with its descriptions and examples) and the rule to
 * answer with JSON only. Built once per schema (kept with its facts) and the name and description it names.
 */
export function schemaInstruction(spec: OutputSpec): ChatCompletionMessageParam {
  if (spec.kind === 'json_object') return JSON_OBJECT_INSTRUCTION;
  const facts = schemaFacts(spec.schema!);
  const key = `${spec.name}\n${spec.description ?? ''}`;
  if (facts.instruction?.key !== key) facts.instruction = { key, message: buildInstruction(spec) };
  return facts.instruction.message;
}

function buildInstruction(spec: OutputSpec): ChatCompletionMessageParam {
  const about = spec.description ? ` (${spec.description})` : '';
  return {
    role: 'system',
    content:
      `Answer with one JSON object that conforms to the JSON Schema "${spec.name}"${about} below. ` +
      "Output the JSON only: no prose, no code fences. Follow each field's description; examples show the expected " +
      'form.\n' +
      JSON.stringify(spec.modelSchema),
  };
}

/**
 * Extracts, repairs and validates the model's answer against the caller's original schema: a wrapped root is
 * unwrapped first. `nullsMeanLeftOut` only for an answer constrained by OpenAI's strict form, where the gateway itself
 * made optional properties nullable: those nulls (and no others) are dropped.
 */
export function checkOutput(
  content: string | null | undefined,
  spec: OutputSpec,
  nullsMeanLeftOut = false,
): OutputCheck {
  if (!content) return { ok: false, errors: ['the answer was empty'] };
  const found = parseModelJson(content);
  if (!found) return { ok: false, errors: ['the answer is not JSON'] };
  if (spec.kind === 'json_object') {
    const value = found.value;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { ok: false, errors: ['the answer is not a JSON object'] };
    const text = found.text === content ? content : JSON.stringify(value);
    return { ok: true, content: text, parsed: parsedOf(spec, text, value) };
  }
  let value = spec.wrapped ? unwrapAnswer(found.value) : found.value;
  if (nullsMeanLeftOut) value = dropAddedNulls(value, spec.schema!);
  if (!spec.validator!.validate(value)) return { ok: false, errors: spec.validator!.errors() };
  const text = value === found.value && found.text === content ? content : JSON.stringify(value);
  return { ok: true, content: text, parsed: parsedOf(spec, text, value) };
}

/** `message.parsed`: the caller's parser's result, given the value already read when the parser is ours. */
function parsedOf(spec: OutputSpec, text: string, value: unknown): unknown {
  if (spec.parseValue) return spec.parseValue(value);
  return spec.parse ? spec.parse(text) : value;
}

/** The follow-up turn that asks the model to correct an answer that failed validation. */
export function correctionMessages(
  badAnswer: string | null | undefined,
  errors: string[],
): ChatCompletionMessageParam[] {
  return [
    { role: 'assistant', content: badAnswer ?? '' },
    {
      role: 'user',
      content:
        `That answer does not match the required JSON Schema:\n- ${errors.slice(0, 20).join('\n- ')}\nReply ` +
        `with the corrected JSON only.`,
    },
  ];
}

import type { AutoParseableResponseFormat } from 'openai/lib/parser';
import type * as Zod from 'zod';
import { InvalidRequestError } from '../errors.ts';
import { lazyRequire } from '../internal/lazy-require.ts';
import { zod, zodAtHand } from '../internal/load-zod.ts';
import type { JsonSchema } from './json-schema-validator.ts';

/**
 * Where our `zodResponseFormat` keeps its parser of an already-read value: the gateway has parsed the answer to
 * validate it, so `message.parsed` needs no second `JSON.parse` of the text. `$parseRaw` stays for other readers.
 */
export const PARSE_VALUE: unique symbol = Symbol.for('switchyard.zodResponseFormat.parseValue');

/** A zod 4 schema, or a zod 3 one (from `zod@3` or `zod/v3`). */
export type ZodSchemaLike<T = unknown> =
  | { _zod: unknown; _output: T }
  | { _def: unknown; _output: T; parse(value: unknown): T };

/**
 * `response_format` from a zod schema, zod 4 (its own JSON Schema export) or zod 3 (zod-to-json-schema). Like
 * openai-node's `zodResponseFormat`, the result carries a parser, so the answer comes back typed in `message.parsed`.
 */
export function zodResponseFormat<T>(
  schema: ZodSchemaLike<T>,
  name: string,
  options: { description?: string; strict?: boolean } = {},
): AutoParseableResponseFormat<T> {
  zodAtHand();
  const jsonSchema = toJsonSchema(schema);
  const format = {
    type: 'json_schema' as const,
    json_schema: {
      name,
      schema: jsonSchema,
      strict: options.strict ?? true,
      ...(options.description ? { description: options.description } : {}),
    },
  };
  const parseValue = (value: unknown): T => (schema as { parse(value: unknown): T }).parse(value);
  const parse = (content: string): T => parseValue(JSON.parse(content));
  // Non-enumerable, as openai-node does, so the parser never reaches the wire.
  return Object.defineProperties(format, {
    $brand: { value: 'auto-parseable-response-format', enumerable: false },
    $parseRaw: { value: parse, enumerable: false },
    [PARSE_VALUE]: { value: parseValue, enumerable: false },
  }) as unknown as AutoParseableResponseFormat<T>;
}

const zodToJsonSchema = lazyRequire<typeof import('zod-to-json-schema')>('zod-to-json-schema');

function toJsonSchema(schema: ZodSchemaLike): JsonSchema {
  if ('_zod' in schema) {
    const { $schema: _dialect, ...jsonSchema } = zod().toJSONSchema(schema as unknown as Zod.ZodType, {
      target: 'draft-2020-12',
      io: 'output',
    }) as JsonSchema;
    return jsonSchema;
  }
  if ('_def' in schema) {
    const { $schema: _dialect, ...jsonSchema } = zodToJsonSchema().zodToJsonSchema(schema as never, {
      target: 'jsonSchema7',
      $refStrategy: 'root',
    }) as JsonSchema;
    return jsonSchema;
  }
  throw new InvalidRequestError('zodResponseFormat() needs a zod 3 or zod 4 schema.', 'response_format');
}

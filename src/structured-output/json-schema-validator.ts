import type { Ajv as AjvCore, ErrorObject, ValidateFunction } from 'ajv';
import { InvalidRequestError } from '../errors.ts';
import { draftOf, engineFor } from './schema-engines.ts';

export type JsonSchema = Record<string, unknown>;

export interface SchemaValidator {
  validate(value: unknown): boolean;
  /** Readable errors of the last failed validation: `/items/0/price must be number`. */
  errors(): string[];
}

interface Compiled {
  validator: SchemaValidator;
  /** The engine that holds the compiled schema, and the object it is keyed by there: evicted together. */
  engine: AjvCore;
  compiledFrom: JsonSchema;
}

/** Distinct schemas kept compiled; each also lives in its ajv engine until it is evicted from here. */
const MAX_COMPILED_SCHEMAS = 256;
const byObject = new WeakMap<object, SchemaValidator>();
const byText = new Map<string, Compiled>();

/**
 * The compiled validator of a JSON Schema, cached: by object identity (apps usually reuse one schema object), then
 * by content, in one bounded cache that evicts the oldest schema from ajv too. The engine is the one of the draft
 * the schema's `$schema` names (2020-12 when it names none); `$id`/`id`, anchors and local `$ref`s resolve. A schema
 * that cannot be compiled (a remote `$ref`, an unknown draft, an invalid keyword value) is a 400 naming why.
 */
export function compileSchema(schema: JsonSchema, param = 'response_format.json_schema.schema'): SchemaValidator {
  const known = byObject.get(schema);
  if (known) return known;
  const text = JSON.stringify(schema);
  let compiled = byText.get(text);
  if (compiled) {
    // Most recently used last, so the first entry is the one to evict.
    byText.delete(text);
  } else {
    compiled = compile(schema, param);
    if (byText.size >= MAX_COMPILED_SCHEMAS) evictOldest();
  }
  byText.set(text, compiled);
  byObject.set(schema, compiled.validator);
  return compiled.validator;
}

function evictOldest(): void {
  const [text, oldest] = byText.entries().next().value!;
  byText.delete(text);
  oldest.engine.removeSchema(oldest.compiledFrom);
}

function compile(schema: JsonSchema, param: string): Compiled {
  const engine = engineFor(draftOf(schema, param));
  let validate: ValidateFunction;
  // The engine registers a schema under its `$id` (draft-04: `id`); another caller's schema of that id gives way.
  const id = schema.$id ?? schema.id;
  if (typeof id === 'string' && id !== '') engine.removeSchema(id);
  try {
    validate = engine.compile(schema);
  } catch (error) {
    engine.removeSchema(schema);
    throw compileError(error as Error & { missingRef?: string }, schema, param);
  }
  return {
    validator: {
      validate: (value) => validate(value) as boolean,
      errors: () => (validate.errors ?? []).map(describeError),
    },
    engine,
    compiledFrom: schema,
  };
}

function compileError(error: Error & { missingRef?: string }, schema: JsonSchema, param: string): InvalidRequestError {
  if (error.missingRef !== undefined) {
    const at = `${param}${pathOfRef(schema, error.missingRef) ?? ''}.$ref`;
    return new InvalidRequestError(
      `${at} is "${error.missingRef}", which is not in the schema: only references inside the schema itself ` +
        `resolve (no remote or file references). Put the referenced schema under $defs and point at it there.`,
      at,
      'invalid_schema',
    );
  }
  return new InvalidRequestError(`The JSON Schema is invalid: ${error.message}.`, param, 'invalid_schema');
}

/** Where in the schema the `$ref` ajv could not resolve is written (it reports the resolved URI only). */
function pathOfRef(schema: JsonSchema, missing: string): string | undefined {
  const stack: Array<[unknown, string]> = [[schema, '']];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && (missing === ref || missing.endsWith(ref))) return path;
    for (const [key, child] of Object.entries(node))
      stack.push([child, Array.isArray(node) ? `${path}[${key}]` : `${path}.${key}`]);
  }
  return undefined;
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath || '(root)';
  const extra =
    error.keyword === 'additionalProperties'
      ? ` ("${(error.params as { additionalProperty: string }).additionalProperty}")`
      : '';
  return `${where} ${error.message ?? 'is invalid'}${extra}`;
}

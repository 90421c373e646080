import type { ErrorObject, ValidateFunction } from 'ajv';
import { InvalidRequestError } from '../errors.ts';
import { draftOf, engineFor } from './schema-engines.ts';
import { type SchemaFacts, schemaFacts } from './schema-facts.ts';

export type JsonSchema = Record<string, unknown>;

export interface SchemaValidator {
  validate(value: unknown): boolean;
  /** Readable errors of the last failed validation: `/items/0/price must be number`. */
  errors(): string[];
}

/**
 * The compiled validator of a JSON Schema, cached with the schema's other facts (schema-facts.ts): by object identity
 * (apps usually reuse one schema object), then by content, in one bounded cache that evicts the least recently used
 * schema from ajv too. The engine is the one of the draft the schema's `$schema` names (2020-12 when it names none);
 * `$id`/`id`, anchors and local `$ref`s resolve. A schema that cannot be compiled (a remote `$ref`, an unknown draft,
 * an invalid keyword value) is a 400 naming why.
 */
export function compileSchema(schema: JsonSchema, param = 'response_format.json_schema.schema'): SchemaValidator {
  const facts = schemaFacts(schema);
  if (!facts.compiled) facts.compiled = compile(schema, param);
  return facts.compiled.validator;
}

function compile(schema: JsonSchema, param: string): NonNullable<SchemaFacts['compiled']> {
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
  const validator: SchemaValidator = {
    validate: (value) => validate(value) as boolean,
    errors: () => (validate.errors ?? []).map(describeError),
  };
  // The engine keeps the schema keyed by the object it compiled: it leaves with the facts.
  return { validator, dispose: () => engine.removeSchema(schema) };
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

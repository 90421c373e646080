import type { ErrorObject, ValidateFunction } from 'ajv';
import { engineFor } from './ajv-instances.ts';
import { invalidSchemaError, missingRefError } from './schema-compile-errors.ts';
import type { SchemaEngine } from './schema-engine.ts';

/**
 * Ajv: each schema compiled to a JavaScript function (`new Function`) by the ajv instance of its draft, kept until
 * the schema leaves the facts cache. The fastest validator where code generation is allowed (Node, Bun, Deno).
 */
export const ajvEngine: SchemaEngine = {
  name: 'ajv',
  compile(schema, draft, param) {
    const engine = engineFor(draft);
    let validate: ValidateFunction;
    // The engine registers a schema under its `$id` (draft-04: `id`); another caller's schema of that id gives way.
    const id = schema.$id ?? schema.id;
    if (typeof id === 'string' && id !== '') engine.removeSchema(id);
    try {
      validate = engine.compile(schema);
    } catch (error) {
      engine.removeSchema(schema);
      const { missingRef, message } = error as Error & { missingRef?: string };
      throw missingRef !== undefined ? missingRefError(schema, missingRef, param) : invalidSchemaError(message, param);
    }
    return {
      validator: {
        validate: (value) => validate(value) as boolean,
        errors: () => (validate.errors ?? []).map(describeError),
      },
      // The engine keeps the schema keyed by the object it compiled: it leaves with the facts.
      dispose: () => engine.removeSchema(schema),
    };
  },
};

function describeError(error: ErrorObject): string {
  const where = error.instancePath || '(root)';
  const extra =
    error.keyword === 'additionalProperties'
      ? ` ("${(error.params as { additionalProperty: string }).additionalProperty}")`
      : '';
  return `${where} ${error.message ?? 'is invalid'}${extra}`;
}

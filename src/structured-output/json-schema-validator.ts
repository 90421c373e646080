import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { FormatsPlugin } from 'ajv-formats';
import { InvalidRequestError } from '../errors.ts';
import { lazyRequire } from '../internal/lazy-require.ts';

const ajv07 = lazyRequire<typeof import('ajv')>('ajv');
const ajv2020 = lazyRequire<typeof import('ajv/dist/2020.js')>('ajv/dist/2020');
const ajvFormats = lazyRequire<FormatsPlugin & { default?: FormatsPlugin }>('ajv-formats');

export type JsonSchema = Record<string, unknown>;

export interface SchemaValidator {
  validate(value: unknown): boolean;
  /** Readable errors of the last failed validation: `/items/0/price must be number`. */
  errors(): string[];
}

const addFormats = (engine: Ajv | Ajv2020) => (ajvFormats().default ?? ajvFormats())(engine);

let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;
const byObject = new WeakMap<object, SchemaValidator>();
const byText = new Map<string, SchemaValidator>();
const MAX_CACHED_TEXTS = 256;

/**
 * The compiled validator of a JSON Schema, cached: by object identity (apps usually reuse one schema object), then
 * by content. Draft-07 schemas (`$schema` naming draft-04/06/07) compile with Ajv's draft-07 engine, the rest with
 * 2020-12; `definitions` and `$defs` both resolve. Formats (date-time, email, uuid, …) are checked.
 */
export function compileSchema(schema: JsonSchema, param = 'response_format.json_schema.schema'): SchemaValidator {
  const cached = byObject.get(schema);
  if (cached) return cached;
  const text = JSON.stringify(schema);
  let validator = byText.get(text);
  if (!validator) {
    validator = compile(schema, param);
    if (byText.size >= MAX_CACHED_TEXTS) byText.delete(byText.keys().next().value!);
    byText.set(text, validator);
  }
  byObject.set(schema, validator);
  return validator;
}

function compile(schema: JsonSchema, param: string): SchemaValidator {
  const engine = /draft-0[4-7]/.test(String(schema.$schema ?? '')) ? engine07() : engine2020();
  let validate: ValidateFunction;
  try {
    // Our own `$id`s are not wanted: an app reusing one `$id` for two schemas must not collide in the shared engine.
    const { $id: _id, ...withoutId } = schema;
    validate = engine.compile(withoutId);
  } catch (error) {
    throw new InvalidRequestError(`The JSON Schema is invalid: ${(error as Error).message}.`, param, 'invalid_schema');
  }
  return {
    validate: (value) => validate(value) as boolean,
    errors: () => (validate.errors ?? []).map(describeError),
  };
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath || '(root)';
  const extra =
    error.keyword === 'additionalProperties'
      ? ` ("${(error.params as { additionalProperty: string }).additionalProperty}")`
      : '';
  return `${where} ${error.message ?? 'is invalid'}${extra}`;
}

const OPTIONS = { allErrors: true, strict: false, validateFormats: true } as const;

function engine07(): Ajv {
  if (!draft07) {
    draft07 = new (ajv07().Ajv)(OPTIONS);
    addFormats(draft07);
  }
  return draft07;
}

function engine2020(): Ajv2020 {
  if (!draft2020) {
    draft2020 = new (ajv2020().Ajv2020)(OPTIONS);
    addFormats(draft2020);
  }
  return draft2020;
}

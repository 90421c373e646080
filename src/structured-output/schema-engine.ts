import type { Draft } from './schema-draft.ts';

export type JsonSchema = Record<string, unknown>;

export interface SchemaValidator {
  validate(value: unknown): boolean;
  /** Readable errors of the last failed validation: `/items/0/price must be number`. */
  errors(): string[];
}

/** A schema compiled by one engine, and how to release what the engine keeps of it. */
export interface CompiledSchema {
  readonly validator: SchemaValidator;
  readonly dispose: () => void;
}

/**
 * Which validator checks answers against their schemas. `ajv` compiles each schema to JavaScript (fast; needs
 * `new Function`); `interpreter` walks the schema for every answer (no code generation: Cloudflare Workers,
 * CSP-strict pages); `auto` (the default) takes ajv where code generation is allowed and ajv is in the build.
 */
export type SchemaValidatorSetting = 'auto' | 'ajv' | 'interpreter';

/** The gateway's option of the engine (`createGateway({ schemaValidator })`). */
export interface SchemaValidatorOptions {
  /**
   * What checks structured outputs and tool arguments against their JSON Schemas: `ajv` (compiled to JavaScript,
   * fastest), `interpreter` (no code generation: Cloudflare Workers, CSP-strict pages), or `auto` (default): ajv
   * where the runtime allows `new Function` and the build has it, else the interpreter. See docs/structured-outputs.md.
   */
  schemaValidator?: SchemaValidatorSetting | undefined;
}

/** One way of turning a JSON Schema into a validator. Errors read the same from both: `<path> <what failed>`. */
export interface SchemaEngine {
  readonly name: Exclude<SchemaValidatorSetting, 'auto'>;
  /** Throws an `InvalidRequestError` (`invalid_schema`) naming what cannot be compiled. */
  compile(schema: JsonSchema, draft: Draft, param: string): CompiledSchema;
}

import type { SchemaEngine } from './schema-engine.ts';

/** The web build's stand-in for `ajv-loader.ts`: no ajv, so every schema goes to the interpreter. */
export const bundledAjvEngine: SchemaEngine | undefined = undefined;

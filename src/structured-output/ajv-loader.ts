import { ajvEngine } from './ajv-engine.ts';
import type { SchemaEngine } from './schema-engine.ts';

/**
 * The ajv engine where the build has it. The web build swaps this file for `ajv-loader.web.ts` (no ajv), so a
 * Worker or browser bundle never sees ajv nor the `createRequire` that loads it on Node.
 */
export const bundledAjvEngine: SchemaEngine | undefined = ajvEngine;

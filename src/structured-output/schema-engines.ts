import { InvalidRequestError } from '../errors.ts';
import { bundledAjvEngine } from './ajv-loader.ts';
import { interpreterEngine } from './interpreter-engine.ts';
import type { SchemaEngine, SchemaValidatorSetting } from './schema-engine.ts';

export type { SchemaValidatorOptions } from './schema-engine.ts';

let codeGeneration: boolean | undefined;

/**
 * Whether this runtime lets a program make functions from text, asked once, the first time it matters. Cloudflare
 * Workers and pages with a strict Content-Security-Policy throw (an `EvalError`) where Node, Bun and Deno do not.
 */
export function codeGenerationAllowed(): boolean {
  if (codeGeneration === undefined) {
    try {
      codeGeneration = new Function('return 1')() === 1;
    } catch {
      codeGeneration = false;
    }
  }
  return codeGeneration;
}

/**
 * The engine of a setting: `auto` is ajv where it is in the build and code generation is allowed, else the
 * interpreter. Asking for `ajv` where it cannot run is the caller's mistake, named (`createGateway` asks first).
 */
export function schemaEngine(setting: SchemaValidatorSetting = 'auto'): SchemaEngine {
  if (setting === 'interpreter') return interpreterEngine;
  if (setting !== 'auto' && setting !== 'ajv')
    throw new InvalidRequestError(
      `schemaValidator is ${JSON.stringify(setting)}: it is "auto", "ajv" or "interpreter".`,
      'schemaValidator',
      'invalid_schema_validator',
    );
  const ajvRuns = bundledAjvEngine !== undefined && codeGenerationAllowed();
  if (setting === 'auto') return ajvRuns ? bundledAjvEngine! : interpreterEngine;
  if (ajvRuns) return bundledAjvEngine!;
  const why = bundledAjvEngine
    ? 'needs code generation (new Function), which this runtime forbids'
    : 'is not in this build (the web build leaves it out)';
  throw new InvalidRequestError(
    `schemaValidator is "ajv", which ${why}: use "interpreter" or "auto".`,
    'schemaValidator',
    'invalid_schema_validator',
  );
}

/**
 * A gateway's setting, checked when the gateway is created: one that cannot run here (or is no setting) is a mistake
 * in the options, said then rather than at the first structured call.
 */
export function schemaValidatorSetting(setting: SchemaValidatorSetting | undefined): SchemaValidatorSetting {
  schemaEngine(setting);
  return setting ?? 'auto';
}

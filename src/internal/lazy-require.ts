import { nodeBuiltin } from './node-builtin.ts';

let require: NodeJS.Require | undefined;

/**
 * A module loaded on first use rather than at import: zod, ajv and zod-to-json-schema together take ~200 ms to load,
 * which every program importing switchyard would pay even when it never validates a schema or a deployment.
 * Synchronous, because its callers are: `require`, made from node:module when first needed (not imported, so the
 * main entry imports no Node built-in). The web build (Workers, browsers) has no `require`: it swaps this file for
 * lazy-require.web.ts, where the same names are bundled modules.
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => {
    require ??= nodeBuiltin('node:module', `Loading ${id}`).createRequire(import.meta.url);
    return (loaded ??= require(id) as T);
  };
}

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A module loaded on first use rather than at import: zod, ajv and zod-to-json-schema together take ~200 ms to load,
 * which every program importing switchyard would pay even when it never validates a schema or a deployment.
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}

/**
 * The web build's `lazyRequire` (tsup.web.ts swaps it for lazy-require.ts): a Worker or a page has no `require`,
 * so the modules the core loads lazily on Node are bundled, named here: jsonrepair, which structured outputs use on
 * the call path. zod and Kysely are imported when a feature first needs them, chunks of their own (load-zod.web.ts,
 * src/storage/load-kysely.web.ts), so a page that only makes calls does not carry them. Those the web build leaves
 * out fail with an error that says so when a feature asks for them: ajv (Workers forbid its code generation: the
 * validator seam interprets schemas instead), pg (PostgreSQL stores), and zod-to-json-schema (`zodResponseFormat` of
 * a zod 3 schema; zod 4 schemas convert themselves), 21 kB the browser bundle would carry for every page.
 */
import * as jsonrepair from 'jsonrepair';
import { RuntimeUnsupportedError, runtimeName } from './node-builtin.ts';

const BUNDLED: Record<string, unknown> = { jsonrepair };

export function lazyRequire<T>(id: string): () => T {
  return () => {
    const found = BUNDLED[id];
    if (found === undefined)
      throw new RuntimeUnsupportedError(`${id} is not part of switchyard's web build, which ${runtimeName()} loads.`);
    return found as T;
  };
}

/**
 * The web build's `lazyRequire` (tsup.web.ts swaps it for lazy-require.ts): a Worker or a page has no `require`,
 * so the modules the core loads lazily on Node are bundled, named here (of zod, the part the core uses: zod-web.ts).
 * Those the web build leaves out fail with an error that says so when a feature asks for them: ajv (Workers forbid
 * its code generation: the validator seam interprets schemas instead), pg (PostgreSQL stores), and zod-to-json-schema
 * (`zodResponseFormat` of a zod 3 schema; zod 4 schemas convert themselves), 21 kB the browser bundle would carry for
 * every page.
 */
import * as jsonrepair from 'jsonrepair';
import { RuntimeUnsupportedError, runtimeName } from './node-builtin.ts';
import { zodForWeb } from './zod-web.ts';

const BUNDLED: Record<string, unknown> = { zod: zodForWeb, jsonrepair };

export function lazyRequire<T>(id: string): () => T {
  return () => {
    const found = BUNDLED[id];
    if (found === undefined)
      throw new RuntimeUnsupportedError(`${id} is not part of switchyard's web build, which ${runtimeName()} loads.`);
    return found as T;
  };
}

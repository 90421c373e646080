/**
 * The part of zod the core uses, by name, for the web build (lazy-require.web.ts): the whole `zod` namespace keeps
 * every locale and the JSON-Schema importer, 91 kB gzipped of a page's bundle, where these take 29 kB. A member the
 * core starts using must be added to zod-web-members.ts: test/runtime/zod-web.test.ts fails until it is.
 */
import * as z from './zod-web-members.ts';

/** What `lazyRequire('zod')` gives in the web build: `zod.z.<member>`, `zod.<member>` and `toJSONSchema`. */
export const zodForWeb = { ...z, z };

/**
 * The part of zod the core uses, by name, for the web build (lazy-require.web.ts): the whole `zod` namespace keeps
 * every locale and the JSON-Schema importer, 91 kB gzipped of a page's bundle, where these take 29 kB. A member the
 * core starts using must be added here: test/runtime/zod-web.test.ts fails until it is.
 */
import {
  array,
  boolean,
  discriminatedUnion,
  enum as enumOf,
  int,
  iso,
  json,
  literal,
  looseObject,
  number,
  object,
  record,
  strictObject,
  string,
  toJSONSchema,
  union,
  unknown,
} from 'zod';

const z = {
  array,
  boolean,
  discriminatedUnion,
  enum: enumOf,
  int,
  iso,
  json,
  literal,
  looseObject,
  number,
  object,
  record,
  strictObject,
  string,
  union,
  unknown,
};

/** What `lazyRequire('zod')` gives in the web build: `zod.z.<member>`, `zod.<member>` and `toJSONSchema`. */
export const zodForWeb = { ...z, z, toJSONSchema };

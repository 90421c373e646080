import { InvalidRequestError } from '../errors.ts';
import type { JsonSchema } from './schema-engine.ts';

/** The JSON Schema drafts a schema's `$schema` can name. */
export type Draft = 'draft-04' | 'draft-06' | 'draft-07' | '2019-09' | '2020-12';

const DRAFT_OF: Array<[RegExp, Draft]> = [
  [/^https?:\/\/json-schema\.org\/draft-04\/schema#?$/, 'draft-04'],
  [/^https?:\/\/json-schema\.org\/draft-06\/schema#?$/, 'draft-06'],
  [/^https?:\/\/json-schema\.org\/draft-07\/schema#?$/, 'draft-07'],
  [/^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/, '2019-09'],
  [/^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/, '2020-12'],
];

/**
 * The draft a schema is written in, from its `$schema`; 2020-12 when it names none (what zod and OpenAI's examples
 * write). Draft-03 and meta-schemas of one's own cannot be compiled: a 400 naming `$schema`.
 */
export function draftOf(schema: JsonSchema, param: string): Draft {
  const named = schema.$schema;
  if (named === undefined) return '2020-12';
  const found = typeof named === 'string' ? DRAFT_OF.find(([pattern]) => pattern.test(named.trim())) : undefined;
  if (found) return found[1];
  throw new InvalidRequestError(
    `${param}.$schema is ${JSON.stringify(named)}: supported are draft-04, draft-06, draft-07, 2019-09 and 2020-12 ` +
      `(json-schema.org URIs). Remove "$schema" to use 2020-12.`,
    `${param}.$schema`,
    'invalid_schema',
  );
}

/**
 * The drafts' meta-schemas (JSON data, from ajv's package, MIT), for the interpreter, which fetches nothing: a schema
 * may `$ref` its draft's meta-schema, which ajv has built in. Loaded only by `import()` (meta-schemas.ts) when a
 * schema refers to one, so a bundle carries them in a chunk of their own, fetched then.
 */
import meta2019Applicator from 'ajv/dist/refs/json-schema-2019-09/meta/applicator.json' with { type: 'json' };
import meta2019Content from 'ajv/dist/refs/json-schema-2019-09/meta/content.json' with { type: 'json' };
import meta2019Core from 'ajv/dist/refs/json-schema-2019-09/meta/core.json' with { type: 'json' };
import meta2019Format from 'ajv/dist/refs/json-schema-2019-09/meta/format.json' with { type: 'json' };
import meta2019MetaData from 'ajv/dist/refs/json-schema-2019-09/meta/meta-data.json' with { type: 'json' };
import meta2019Validation from 'ajv/dist/refs/json-schema-2019-09/meta/validation.json' with { type: 'json' };
import schema2019 from 'ajv/dist/refs/json-schema-2019-09/schema.json' with { type: 'json' };
import meta2020Applicator from 'ajv/dist/refs/json-schema-2020-12/meta/applicator.json' with { type: 'json' };
import meta2020Content from 'ajv/dist/refs/json-schema-2020-12/meta/content.json' with { type: 'json' };
import meta2020Core from 'ajv/dist/refs/json-schema-2020-12/meta/core.json' with { type: 'json' };
import meta2020Format from 'ajv/dist/refs/json-schema-2020-12/meta/format-annotation.json' with { type: 'json' };
import meta2020MetaData from 'ajv/dist/refs/json-schema-2020-12/meta/meta-data.json' with { type: 'json' };
import meta2020Unevaluated from 'ajv/dist/refs/json-schema-2020-12/meta/unevaluated.json' with { type: 'json' };
import meta2020Validation from 'ajv/dist/refs/json-schema-2020-12/meta/validation.json' with { type: 'json' };
import schema2020 from 'ajv/dist/refs/json-schema-2020-12/schema.json' with { type: 'json' };
import draft06 from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json' with { type: 'json' };
import draft04 from 'ajv-draft-04/dist/refs/json-schema-draft-04.json' with { type: 'json' };
import type { Draft } from './schema-draft.ts';

/** The meta-schemas ajv's engine for each draft knows (its draft-06 engine is the draft-07 one, given draft-06's). */
export const META_SCHEMAS: Record<Draft, readonly object[]> = {
  'draft-04': [draft04],
  'draft-06': [draft06, draft07],
  'draft-07': [draft07],
  '2019-09': [
    schema2019,
    meta2019Core,
    meta2019Applicator,
    meta2019Validation,
    meta2019MetaData,
    meta2019Format,
    meta2019Content,
  ],
  '2020-12': [
    schema2020,
    meta2020Core,
    meta2020Applicator,
    meta2020Unevaluated,
    meta2020Validation,
    meta2020MetaData,
    meta2020Format,
    meta2020Content,
  ],
};

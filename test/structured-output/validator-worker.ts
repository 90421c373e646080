// Bundled by validator-workerd.test.ts (the web build's seam: ajv-loader.web.ts) and run in workerd without
// nodejs_compat, where `new Function` throws: answers what the validator found.
import { compileSchema, prepareSchemas } from '../../src/structured-output/json-schema-validator.ts';
import { codeGenerationAllowed } from '../../src/structured-output/schema-engines.ts';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    email: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { $ref: '#/$defs/tag' } },
  },
  required: ['name', 'email'],
  additionalProperties: false,
  $defs: { tag: { type: 'string' } },
};

/** A schema whose property must itself be a draft-07 schema: its meta-schema is loaded first, as the pipeline does. */
const ofSchemas = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  properties: { definition: { $ref: 'http://json-schema.org/draft-07/schema#' } },
};

export default {
  async fetch(): Promise<Response> {
    await prepareSchemas(ofSchemas);
    const metaSchema = compileSchema(ofSchemas);
    const validator = compileSchema(schema);
    const valid = validator.validate({ name: 'Ada', email: 'ada@example.com', tags: ['x'] });
    const invalid = validator.validate({ name: 1, email: 'nope', tags: [2], extra: true });
    let refused = '';
    try {
      compileSchema({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } });
    } catch (error) {
      refused = (error as Error).message;
    }
    return Response.json({
      codeGeneration: codeGenerationAllowed(),
      valid,
      invalid,
      errors: validator.errors(),
      refused,
      metaSchema: [
        metaSchema.validate({ definition: { minimum: 1 } }),
        metaSchema.validate({ definition: { minimum: 'one' } }),
      ],
    });
  },
};

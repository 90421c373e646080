import { afterEach, describe, expect, it, vi } from 'vitest';
import { bundledAjvEngine } from '../../src/structured-output/ajv-loader.ts';
import { interpreterEngine } from '../../src/structured-output/interpreter-engine.ts';
import { AJV_AFTER_USES, compileSchema } from '../../src/structured-output/json-schema-validator.ts';
import { schemaFacts } from '../../src/structured-output/schema-facts.ts';

/**
 * `schemaValidator: 'auto'` on a runtime where ajv runs: a schema is interpreted while cold and compiled by ajv once
 * used `AJV_AFTER_USES` times (json-schema-validator.ts); which engine refuses a schema stays ajv's decision.
 */
let unique = 0;
/** A schema no other test has used: its own property name, required. */
function freshSchema() {
  const own = `own${unique++}`;
  const schema = {
    type: 'object',
    properties: {
      n: { type: 'integer', minimum: 1 },
      s: { enum: ['a', 'b'] },
      tags: { type: 'array', maxItems: 2 },
      [own]: { type: 'integer' },
    },
    required: ['n', own],
    additionalProperties: false,
  };
  return schema;
}
/** An answer `schema` takes. */
const answerTo = (schema: ReturnType<typeof freshSchema>) => ({ n: 1, [schema.required[1]!]: 1 });
const engines = (schema: object) => Object.keys(schemaFacts(schema).compiled ?? {}).sort();

afterEach(() => vi.restoreAllMocks());

describe('auto: the interpreter while a schema is cold, ajv once it is hot', () => {
  it('interprets the first uses and compiles with ajv at the use that makes it hot, then keeps ajv', () => {
    const schema = freshSchema();
    for (let use = 1; use < AJV_AFTER_USES; use++) compileSchema(schema);
    expect(engines(schema)).toEqual(['interpreter']);
    const compiling = vi.spyOn(bundledAjvEngine!, 'compile');
    compileSchema(schema);
    compileSchema(schema);
    // The interpreter's copy is let go once ajv has the schema: one validator kept per hot schema.
    expect(engines(schema)).toEqual(['ajv']);
    expect(compiling).toHaveBeenCalledTimes(1);
  });

  it('walks a schema for meta-schema references once, not at every cold use', () => {
    const schema = freshSchema();
    expect(schemaFacts(schema).refersToMetaSchema).toBeUndefined();
    compileSchema(schema);
    expect(schemaFacts(schema).refersToMetaSchema).toBe(false);
    const metaSchema = { $ref: 'https://json-schema.org/draft/2020-12/schema' };
    compileSchema(metaSchema);
    expect(schemaFacts(metaSchema).refersToMetaSchema).toBe(true);
    expect(engines(metaSchema)).toEqual(['ajv']);
  });

  it('counts uses by content: a fresh copy of a schema (a new request body) is the same schema', () => {
    const schema = freshSchema();
    for (let use = 0; use < AJV_AFTER_USES; use++) compileSchema(structuredClone(schema));
    expect(engines(schema)).toEqual(['ajv']);
  });

  it('words the errors of an answer the same cold and hot (the correction sent to the model reads them)', () => {
    const schema = freshSchema();
    const answers = [{ n: 0 }, { n: 'x' }, { n: 1, s: 'c', extra: 1 }, { n: 1, tags: [1, 2, 3] }, 5];
    const errorsOf = () =>
      answers.map((answer) => {
        const validator = compileSchema(schema);
        expect(validator.validate(answer)).toBe(false);
        return validator.errors().sort();
      });
    const cold = errorsOf();
    for (let use = 0; use < AJV_AFTER_USES; use++) compileSchema(schema);
    expect(engines(schema)).toContain('ajv');
    expect(errorsOf()).toEqual(cold);
  });

  it('leaves refusing a schema to ajv: one the interpreter cannot take is compiled by ajv at once', () => {
    vi.spyOn(interpreterEngine, 'compile').mockImplementation(() => {
      throw new Error('the interpreter cannot take it');
    });
    const schema = freshSchema();
    expect(compileSchema(schema).validate(answerTo(schema))).toBe(true);
    expect(engines(schema)).toEqual(['ajv']);
  });

  it('refuses what both refuse with ajv’s error, as without tiers', () => {
    const schema = { type: 'object', properties: { a: { $ref: 'https://example.com/elsewhere.json' } } };
    expect(() => compileSchema(schema)).toThrow(/elsewhere\.json/);
  });

  it('keeps a hot schema interpreted when ajv refuses it, and does not try ajv again', () => {
    const schema = freshSchema();
    const compiling = vi.spyOn(bundledAjvEngine!, 'compile').mockImplementation(() => {
      throw new Error('ajv cannot take it');
    });
    for (let use = 0; use < AJV_AFTER_USES + 5; use++)
      expect(compileSchema(schema).validate(answerTo(schema))).toBe(true);
    expect(engines(schema)).toEqual(['interpreter']);
    expect(compiling).toHaveBeenCalledTimes(1);
  });

  it('compiles each schema at once when asked for ajv, and interprets each one when asked for the interpreter', () => {
    const compiled = freshSchema();
    compileSchema(compiled, 'schema', 'ajv');
    expect(engines(compiled)).toEqual(['ajv']);
    const interpreted = freshSchema();
    for (let use = 0; use < AJV_AFTER_USES + 1; use++) compileSchema(interpreted, 'schema', 'interpreter');
    expect(engines(interpreted)).toEqual(['interpreter']);
  });
});

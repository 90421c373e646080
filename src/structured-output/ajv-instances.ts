import type { Ajv as AjvCore, AnySchemaObject } from 'ajv';
import type { FormatsPlugin } from 'ajv-formats';
import { lazyRequire } from '../internal/lazy-require.ts';
import type { Draft } from './schema-draft.ts';

type AjvClass = new (options: object) => AjvCore;
const lazyDraft04 = lazyRequire<{ default: AjvClass }>('ajv-draft-04');
const lazyAjv = lazyRequire<{ Ajv: AjvClass }>('ajv');
const lazyAjv2019 = lazyRequire<{ Ajv2019: AjvClass }>('ajv/dist/2019');
const lazyAjv2020 = lazyRequire<{ Ajv2020: AjvClass }>('ajv/dist/2020');
const lazyFormats = lazyRequire<FormatsPlugin & { default?: FormatsPlugin }>('ajv-formats');
/** Each draft compiled by ajv's own engine for it. */
const classes: Record<Draft, () => AjvClass> = {
  'draft-04': () => lazyDraft04().default,
  // Ajv's draft-07 engine also runs draft-06 once it has the draft-06 meta-schema.
  'draft-06': () => lazyAjv().Ajv,
  'draft-07': () => lazyAjv().Ajv,
  '2019-09': () => lazyAjv2019().Ajv2019,
  '2020-12': () => lazyAjv2020().Ajv2020,
};
const lazyDraft06Meta = lazyRequire<AnySchemaObject>('ajv/dist/refs/json-schema-draft-06.json');

/**
 * Formats are checked; unknown keywords are allowed (real schemas carry `x-…`, `tsType`, `markdownDescription`);
 * only an answer's own properties count (`toString` or `constructor` are not there because every object inherits them).
 */
const OPTIONS = { allErrors: true, strict: false, validateFormats: true, ownProperties: true } as const;
/**
 * An engine compiles this many schemas, then a fresh one takes over. Ajv keeps a value of every schema it compiled in
 * its code-generation scope for the engine's lifetime (`removeSchema` does not release it), so one long-lived engine
 * grows with every distinct schema; a retired engine is collected once the validators it made are evicted.
 */
const COMPILATIONS_PER_ENGINE = 256;
const engines = new Map<Draft, { engine: AjvCore; compilations: number }>();

/** The engine to compile one schema of this draft with. */
export function engineFor(draft: Draft): AjvCore {
  let current = engines.get(draft);
  if (!current || current.compilations >= COMPILATIONS_PER_ENGINE) {
    current = { engine: newEngine(draft), compilations: 0 };
    engines.set(draft, current);
  }
  current.compilations += 1;
  return current.engine;
}

function newEngine(draft: Draft): AjvCore {
  const engine = new (classes[draft]())(OPTIONS);
  if (draft === 'draft-06') engine.addMetaSchema(lazyDraft06Meta());
  (lazyFormats().default ?? lazyFormats())(engine as never);
  return engine;
}

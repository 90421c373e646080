import type { Draft } from './schema-draft.ts';

/** What `$ref`, `$recursiveRef` and `$dynamicRef` name when they point at a draft's meta-schema. */
const META_SCHEMA_URI = /^https?:\/\/json-schema\.org\//;
const REFERENCE_KEYS = ['$ref', '$recursiveRef', '$dynamicRef'];

let loaded: Record<Draft, readonly object[]> | undefined;
let loading: Promise<void> | undefined;

/**
 * Whether a value (a schema, or the parts of a request that hold schemas) refers to a meta-schema of json-schema.org
 * anywhere in it.
 */
export function refersToMetaSchema(value: unknown): boolean {
  const pending = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      if (typeof child === 'string') {
        if (REFERENCE_KEYS.includes(key) && META_SCHEMA_URI.test(child)) return true;
      } else if (typeof child === 'object') pending.push(child);
    }
  }
  return false;
}

/**
 * Loads the meta-schemas (a chunk of their own: a bundle of plain calls does not carry them). Once loaded they stay,
 * for every later compilation; a failed load is tried again by the next call that needs it.
 */
export function loadMetaSchemas(): Promise<void> | undefined {
  if (loaded) return undefined;
  loading ??= import('./meta-schema-data.ts').then(
    (data) => {
      loaded = data.META_SCHEMAS;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The meta-schemas ajv's engine for the draft knows, once loaded (`loadMetaSchemas`); none before. */
export function loadedMetaSchemas(draft: Draft): readonly object[] {
  return loaded?.[draft] ?? [];
}

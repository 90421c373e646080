import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { JsonSchema, SchemaValidator } from './json-schema-validator.ts';
import type { StrictPlan } from './strict-json-schema.ts';

/**
 * What the gateway works out about one JSON Schema, once per distinct content: whether it is within the request
 * limits, its compiled validator, its strict-form plan, the schema the model is asked to answer and the prompted
 * path's instruction. Each is filled in by the stage that first needs it.
 */
export interface SchemaFacts {
  /** `JSON.stringify` of the schema: the content key. */
  readonly text: string;
  /** The schema passed `assertSchemaLimits`. */
  withinLimits?: true;
  /** The compiled validator (json-schema-validator.ts), and how to drop it from its engine when evicted. */
  compiled?: { readonly validator: SchemaValidator; readonly dispose: () => void };
  strict?: StrictPlan;
  /** `modelSchemaOf`'s answer; `schema: undefined` when it is the caller's schema itself, unchanged. */
  model?: { readonly schema: JsonSchema | undefined; readonly wrapped: boolean };
  /** The prompted path's instruction, for the `name`/`description` it was written with (`key`). */
  instruction?: { readonly key: string; readonly message: ChatCompletionMessageParam };
}

/**
 * Distinct schema contents kept. The keys come from callers (every request body may carry new schemas), so the map
 * is bounded: past this many entries the least recently used one is dropped (and its validator leaves ajv). Memory
 * is at most this many times the largest schema `SCHEMA_LIMITS` lets through, plus its compiled validator.
 */
export const MAX_SCHEMA_FACTS = 256;

/** A schema object already seen (apps reuse one object; a request's stages share its freshly parsed one). */
const byObject = new WeakMap<object, SchemaFacts>();
/** By content, least recently used first: a server parses a fresh body, so identity never hits across requests. */
const byText = new Map<string, SchemaFacts>();

/**
 * The facts entry of `schema`: by object identity, else by content (one `JSON.stringify` per schema object), else a
 * new, empty one. Throws what `JSON.stringify` throws (a cycle, a nesting too deep for the stack).
 */
export function schemaFacts(schema: object): SchemaFacts {
  let facts = byObject.get(schema);
  if (facts) return facts;
  const text = JSON.stringify(schema);
  facts = byText.get(text);
  if (facts) {
    // Most recently used last, so the first entry is the one to evict.
    byText.delete(text);
  } else {
    facts = { text };
    if (byText.size >= MAX_SCHEMA_FACTS) evictOldest();
  }
  byText.set(text, facts);
  byObject.set(schema, facts);
  return facts;
}

function evictOldest(): void {
  const [text, oldest] = byText.entries().next().value!;
  byText.delete(text);
  oldest.compiled?.dispose();
}

/** How many contents are held (for tests of the bound). */
export function schemaFactsSize(): number {
  return byText.size;
}

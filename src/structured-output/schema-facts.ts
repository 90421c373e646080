import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { CompiledSchema, JsonSchema, SchemaEngine } from './schema-engine.ts';
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
  /** The validator each engine compiled (json-schema-validator.ts), and how to drop it from its engine when evicted. */
  compiled?: Partial<Record<SchemaEngine['name'], CompiledSchema>>;
  /** Times `auto` asked for this content's validator before ajv compiled it (json-schema-validator.ts). */
  uses?: number;
  /** ajv could not compile what the interpreter took: it stays interpreted. */
  ajvRefused?: true;
  /** The schema refers to a draft's meta-schema (`refersToMetaSchema`, a walk of the whole schema): asked once. */
  refersToMetaSchema?: boolean;
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

/**
 * Characters of schema text kept in all: a request may carry a schema of megabytes (a long description), and 256 of
 * them would be gigabytes. Past this the oldest entries go first; one schema larger than it is kept alone.
 */
export const MAX_SCHEMA_FACTS_CHARS = 8 * 1024 * 1024;

/** A schema object already seen (apps reuse one object; a request's stages share its freshly parsed one). */
const byObject = new WeakMap<object, SchemaFacts>();
/** By content, least recently used first: a server parses a fresh body, so identity never hits across requests. */
const byText = new Map<string, SchemaFacts>();
/** The length of every key of `byText`, added up. */
let heldChars = 0;

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
    while (byText.size > 0 && (byText.size >= MAX_SCHEMA_FACTS || heldChars + text.length > MAX_SCHEMA_FACTS_CHARS))
      evictOldest();
    heldChars += text.length;
  }
  byText.set(text, facts);
  byObject.set(schema, facts);
  return facts;
}

function evictOldest(): void {
  const [text, oldest] = byText.entries().next().value!;
  byText.delete(text);
  heldChars -= text.length;
  for (const compiled of Object.values(oldest.compiled ?? {})) compiled.dispose();
}

/** How many contents are held, and their characters (for tests of the bounds). */
export function schemaFactsSize(): number {
  return byText.size;
}

export function schemaFactsChars(): number {
  return heldChars;
}

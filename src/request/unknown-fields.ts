import type { CompletionWarning } from '../types.ts';

/**
 * Fields Switchyard does not know inside the objects of a request it reads (messages, their content parts, tools,
 * `tool_choice`, `response_format`, `stream_options`). A top-level key it does not know is a 400; inside those
 * objects an unknown field is dropped with an `unsupported_parameter` warning (an error under `strict`), so a
 * client's extra field never fails a call silently nor reaches a provider unseen. Switchyard's own objects
 * (`reasoning`, `hedge`) refuse unknown fields outright, as top-level keys are refused.
 */

/**
 * The fields of a chat message of any role (OpenAI's, those of an answer sent back as the SDK returned it, and the
 * extensions Switchyard gives or reads: reasoning state, `parsed`, cache breakpoints, the dialects' marks). A switch,
 * not a set: it runs for every key of every message of every call, and is several times faster.
 */
export function isMessageField(key: string): boolean {
  switch (key) {
    case 'role':
    case 'content':
    case 'name':
    case 'tool_calls':
    case 'tool_call_id':
    case 'refusal':
    case 'audio':
    case 'function_call':
    case 'annotations':
    case 'cache_control':
    case 'reasoning_content':
    case 'reasoning_details':
    case 'images':
    case 'parsed':
    case 'is_error':
    case 'from_instructions':
      return true;
    default:
      return false;
  }
}

/** The fields of a content part of any type (a switch, as `isMessageField`). */
export function isPartField(key: string): boolean {
  switch (key) {
    case 'type':
    case 'text':
    case 'image_url':
    case 'input_audio':
    case 'file':
    case 'refusal':
    case 'cache_control':
      return true;
    default:
      return false;
  }
}

export const TOOL_FIELDS = new Set(['type', 'function', 'custom', 'cache_control']);
export const TOOL_SPEC_FIELDS: Record<string, ReadonlySet<string>> = {
  function: new Set(['name', 'description', 'parameters', 'strict']),
  custom: new Set(['name', 'description', 'format']),
};
export const TOOL_CHOICE_FIELDS = new Set(['type', 'function', 'custom', 'allowed_tools']);
export const NAME_ONLY = new Set(['name']);
export const ALLOWED_TOOLS_FIELDS = new Set(['mode', 'tools']);
export const RESPONSE_FORMAT_FIELDS: Record<string, ReadonlySet<string>> = {
  text: new Set(['type']),
  json_object: new Set(['type', 'schema']),
  json_schema: new Set(['type', 'json_schema']),
};
export const JSON_SCHEMA_FIELDS = new Set(['name', 'description', 'schema', 'strict']);

/** A field's place in the request: its keys from the top, e.g. `['messages', 0, 'weight']`. */
export type FieldPath = ReadonlyArray<string | number>;

/** Where a check notes an unknown field; a check run without one (a deployment's settings) ignores them. */
export interface FieldNotes {
  unknownField(path: FieldPath): void;
}

/**
 * Notes every own key of `value` that `known` does not hold (a `null` or absent value drops nothing). `at` is called
 * only when there is one to note.
 */
export function noteUnknownFields(
  value: Record<string, unknown>,
  known: ReadonlySet<string> | ((key: string) => boolean),
  at: () => FieldPath,
  notes: FieldNotes | undefined,
): void {
  if (!notes) return;
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    if ((typeof known === 'function' ? known(key) : known.has(key)) || value[key] == null) continue;
    notes.unknownField([...at(), key]);
  }
}

/** `messages[1].content[0].lang`; a key longer than a field name needs is cut (a caller chose it). */
function formatPath(path: FieldPath): string {
  return path
    .map((key, index) => {
      if (typeof key === 'number') return `[${key}]`;
      const name = key.length > MAX_NAME ? `${key.slice(0, MAX_NAME)}…` : key;
      return index === 0 ? name : `.${name}`;
    })
    .join('');
}
const MAX_NAME = 64;

export function unknownFieldWarning(path: FieldPath): CompletionWarning {
  const param = formatPath(path);
  return {
    code: 'unsupported_parameter',
    param,
    message: `${param} is not a field Switchyard knows there; it was dropped (not sent to the provider).`,
  };
}

/** Unknown fields named one by one at most, then counted: a request of thousands gets a short answer. */
const NAMED_UNKNOWN_FIELDS = 20;

/** A warning for each of the first unknown fields, and one that counts the rest (each is dropped all the same). */
export function warnUnknownFields(paths: readonly FieldPath[], trace: { warn(warning: CompletionWarning): void }) {
  for (const path of paths.slice(0, NAMED_UNKNOWN_FIELDS)) trace.warn(unknownFieldWarning(path));
  const rest = paths.length - NAMED_UNKNOWN_FIELDS;
  if (rest <= 0) return;
  trace.warn({
    code: 'unsupported_parameter',
    param: formatPath(paths[NAMED_UNKNOWN_FIELDS]!),
    message: `And ${rest} more field${rest === 1 ? ' was' : 's were'} dropped: none is a field Switchyard knows there.`,
  });
}

/**
 * `body` without the fields at `paths`, copied along each path only (the caller's objects are never changed); a
 * path whose top-level key the body does not hold is skipped.
 */
export function withoutFields<T extends Record<string, unknown>>(body: T, paths: readonly FieldPath[]): T {
  // The paths as a tree, so that each object on them is copied once, however many of its fields go (one copy per
  // path made a message of 30,000 unknown fields take minutes).
  const tree: PathTree = new Map();
  for (const path of paths) {
    let node = tree;
    for (const [index, key] of path.entries()) {
      if (node.get(key) === null) break;
      if (index === path.length - 1) {
        node.set(key, null);
        break;
      }
      let next = node.get(key);
      if (next === undefined) node.set(key, (next = new Map()));
      node = next as PathTree;
    }
  }
  return removeTree(body, tree) as T;
}

/** Keys to go into (their own tree) or to remove (`null`). */
type PathTree = Map<string | number, PathTree | null>;

function removeTree(container: unknown, tree: PathTree): unknown {
  if (typeof container !== 'object' || container === null) return container;
  const copy = (Array.isArray(container) ? [...container] : { ...container }) as Record<string | number, unknown>;
  for (const [key, below] of tree) {
    // A key the body does not hold (a field of another shape than was checked) is skipped.
    if (!(key in copy)) continue;
    if (below === null) delete copy[key];
    else copy[key] = removeTree(copy[key], below);
  }
  return copy;
}

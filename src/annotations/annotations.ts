import { InvalidRequestError, SwitchyardError } from '../errors.ts';
import { type CallQueryScope, isoInstant } from '../records/call-query.ts';
import type { CallRecord } from '../records/call-record.ts';
import type { CallStore } from '../records/call-store.ts';
import { uuidv7 } from '../records/uuidv7.ts';
import {
  type Annotation,
  type AnnotationInput,
  type AnnotationPage,
  type AnnotationQuery,
  DEFAULT_ANNOTATION_LIMIT,
  type StoredAnnotation,
} from './annotation.ts';
import { annotationSchemas } from './annotation-schema.ts';
import type { AnnotationStore } from './annotation-store.ts';
import { MemoryAnnotationStore } from './memory-annotation-store.ts';

export interface AddAnnotationsOptions {
  /** Who writes them (a `serve` key's id), kept as `author`. */
  author?: string | undefined;
  /** Whether the caller may annotate this call; a call it may not is answered as one that does not exist. */
  mayAnnotate?: ((record: CallRecord) => boolean | Promise<boolean>) | undefined;
}

export interface ListAnnotationsOptions {
  /** Only the annotations of these agents' calls, or of the calls made with these keys (as a call query's scope). */
  scope?: CallQueryScope | undefined;
}

/** `gateway.annotations`: notes and metrics on recorded calls. See docs/observability.md. */
export interface Annotations {
  /**
   * Stores annotations, all or none, and returns them. Each target must be a recorded call (404 `call_not_found`
   * otherwise); its agent is read from the call's record. A wrong part is a 400 naming its path.
   */
  add(annotations: AnnotationInput | AnnotationInput[], options?: AddAnnotationsOptions): Promise<Annotation[]>;
  /** Annotations newest first, filtered, one page at a time. */
  list(query?: AnnotationQuery, options?: ListAnnotationsOptions): Promise<AnnotationPage>;
}

/** The annotations beside `calls`: in its own annotation store (same database), or in memory. */
export function createAnnotations(calls: CallStore, flush: () => Promise<void>): Annotations {
  let store: AnnotationStore | undefined;
  const storeOf = () => (store ??= calls.annotationStore?.() ?? new MemoryAnnotationStore());

  return {
    async add(input, options = {}) {
      const list = checked('add', { annotations: Array.isArray(input) ? input : [input] }).annotations;
      // Records are written in batches: flushed, a call just answered can be annotated.
      await flush();
      const records = await callsOf(calls, list, options);
      const createdAt = new Date().toISOString();
      const rows = list.map((annotation, index): StoredAnnotation => {
        const record = records[index]!;
        return {
          id: `ann_${uuidv7()}`,
          target: annotation.target,
          agent_id: record.agent_id,
          key_path: annotation.key_path ?? null,
          text: annotation.text ?? null,
          metric: annotation.metric ?? null,
          author: options.author ?? null,
          created_at: createdAt,
          call_api_key_id: record.metadata?.api_key_id ?? null,
        };
      });
      await storeOf().insert(rows);
      return rows.map(({ call_api_key_id: _, ...annotation }) => annotation);
    },

    async list(query = {}, options = {}) {
      const parsed = checked('query', query);
      return storeOf().list({
        ...parsed,
        since: parsed.since === undefined ? undefined : isoInstant(parsed.since),
        until: parsed.until === undefined ? undefined : isoInstant(parsed.until),
        limit: parsed.limit ?? DEFAULT_ANNOTATION_LIMIT,
        scope: options.scope ?? {},
      });
    },
  };
}

/** The call record of each annotation's target, in order; a 404 naming the first that is missing or refused. */
async function callsOf(
  calls: CallStore,
  list: AnnotationInput[],
  options: AddAnnotationsOptions,
): Promise<CallRecord[]> {
  const get = calls.get?.bind(calls);
  if (!get)
    throw new SwitchyardError('The call store does not look calls up by id: calls cannot be annotated.', {
      status: 501,
      type: 'api_error',
      code: 'not_supported',
    });
  const found = new Map<string, Promise<CallRecord | null>>();
  const records: CallRecord[] = [];
  for (const [index, { target }] of list.entries()) {
    if (!('call_id' in target))
      throw new InvalidRequestError(
        `Annotation: annotations.${index}.target: experiments do not exist yet; only { call_id } can be annotated.`,
        `annotations.${index}.target`,
      );
    const id = target.call_id;
    if (!found.has(id)) found.set(id, allowed(get(id), options));
    const record = await found.get(id)!;
    if (!record)
      throw new SwitchyardError(`No call has the id "${id}".`, {
        status: 404,
        type: 'invalid_request_error',
        code: 'call_not_found',
        param: `annotations.${index}.target.call_id`,
      });
    records.push(record);
  }
  return records;
}

async function allowed(lookup: Promise<CallRecord | null>, options: AddAnnotationsOptions) {
  const record = await lookup;
  return record && (!options.mayAnnotate || (await options.mayAnnotate(record))) ? record : null;
}

/** A value through one of the schemas; a 400 naming the first wrong path (`annotations.0.metric.value`). */
function checked<Name extends 'add' | 'query'>(name: Name, value: unknown) {
  const result = annotationSchemas()[name].safeParse(value ?? {});
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const path = [...issue.path, ...keys.slice(0, 1)].join('.');
    throw new InvalidRequestError(`Annotation: ${path || 'the input'}: ${issue.message}`, path || null);
  }
  return result.data as ReturnType<ReturnType<typeof annotationSchemas>[Name]['parse']>;
}

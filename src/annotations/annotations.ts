import { SwitchyardError } from '../errors.ts';
import { firstIssueError } from '../internal/first-issue.ts';
import { loadZod } from '../internal/load-zod.ts';
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

export interface AddAnnotationsOptions {
  /** Who writes them (a `serve` key's id), kept as `author`. */
  author?: string | undefined;
  /** Whether the caller may annotate this call; a call it may not is answered as one that does not exist. */
  mayAnnotate?: ((record: CallRecord) => boolean | Promise<boolean>) | undefined;
  /** Whether the caller may annotate the cells of an experiment of this agent and author (404 otherwise). */
  mayAnnotateExperiment?: ((owner: CellOwner) => boolean | Promise<boolean>) | undefined;
}

/** Whose an experiment cell is: its experiment's agent and author (the key that created it). */
export interface CellOwner {
  agent_id: string;
  author: string | null;
}

/** An experiment as its cells' annotations see it: whose it is, and (read once, when first asked) its cells. */
export interface ExperimentCells extends CellOwner {
  hasCell(cellId: string): Promise<boolean>;
}

/** An experiment's owner and cells, or `null` when it does not exist. */
export type FindCellOwner = (experimentId: string) => Promise<ExperimentCells | null>;

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

/** The annotations of `calls`, kept in `store` (the same database's: `openStores`). */
export function createAnnotations(
  store: AnnotationStore,
  calls: CallStore,
  flush: () => Promise<void>,
  cellOwner?: FindCellOwner,
): Annotations {
  const storeOf = () => store;

  return {
    async add(input, options = {}) {
      await loadZod();
      const list = checked('add', { annotations: Array.isArray(input) ? input : [input] }).annotations;
      // Records are written in batches: flushed, a call just answered can be annotated.
      await flush();
      const owners = await ownersOf(calls, cellOwner, list, options);
      const createdAt = new Date().toISOString();
      const rows = list.map((annotation, index): StoredAnnotation => {
        const owner = owners[index]!;
        return {
          id: `ann_${uuidv7()}`,
          target: annotation.target,
          agent_id: owner.agent_id,
          key_path: annotation.key_path ?? null,
          text: annotation.text ?? null,
          metric: annotation.metric ?? null,
          author: options.author ?? null,
          created_at: createdAt,
          call_api_key_id: owner.api_key_id,
        };
      });
      await storeOf().insert(rows);
      return rows.map(({ call_api_key_id: _, ...annotation }) => annotation);
    },

    async list(query = {}, options = {}) {
      await loadZod();
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

/** Whose each annotation's target is (a call's agent and key, a cell's experiment's); a 404 names the first missing. */
async function ownersOf(
  calls: CallStore,
  cellOwner: FindCellOwner | undefined,
  list: AnnotationInput[],
  options: AddAnnotationsOptions,
): Promise<Array<{ agent_id: string | null; api_key_id: string | null }>> {
  const get = calls.get?.bind(calls);
  const found = new Map<string, Promise<{ agent_id: string | null; api_key_id: string | null } | null>>();
  // Each experiment found once a request: its header, then (once the caller may annotate it) its cells.
  const experiments = new Map<string, Promise<ExperimentCells | null>>();
  const experiment = (id: string) => {
    let lookup = experiments.get(id);
    if (!lookup) experiments.set(id, (lookup = cellOwner?.(id) ?? Promise.resolve(null)));
    return lookup;
  };
  const owners: Array<{ agent_id: string | null; api_key_id: string | null }> = [];
  for (const [index, { target }] of list.entries()) {
    const where = `annotations.${index}.target`;
    const id = 'call_id' in target ? target.call_id : `${target.experiment_id}/${target.cell_id}`;
    if (!found.has(id)) {
      if ('call_id' in target) {
        if (!get)
          throw new SwitchyardError('The call store does not look calls up by id: calls cannot be annotated.', {
            status: 501,
            type: 'api_error',
            code: 'not_supported',
          });
        found.set(id, allowedCall(get(id), options));
      } else found.set(id, allowedCell(experiment(target.experiment_id), target.cell_id, options));
    }
    const owner = await found.get(id)!;
    if (!owner) throw notFound(target, where);
    owners.push(owner);
  }
  return owners;
}

function notFound(target: AnnotationInput['target'], where: string): SwitchyardError {
  const call = 'call_id' in target;
  return new SwitchyardError(
    call
      ? `No call has the id "${target.call_id}".`
      : `Experiment "${target.experiment_id}" has no cell "${target.cell_id}".`,
    {
      status: 404,
      type: 'invalid_request_error',
      code: call ? 'call_not_found' : 'cell_not_found',
      param: call ? `${where}.call_id` : `${where}.cell_id`,
    },
  );
}

async function allowedCall(lookup: Promise<CallRecord | null>, options: AddAnnotationsOptions) {
  const record = await lookup;
  if (!record || (options.mayAnnotate && !(await options.mayAnnotate(record)))) return null;
  return { agent_id: record.agent_id, api_key_id: record.metadata?.api_key_id ?? null };
}

async function allowedCell(lookup: Promise<ExperimentCells | null>, cellId: string, options: AddAnnotationsOptions) {
  const owner = await lookup;
  // A caller with rules for calls but none for experiments annotates no cell: fail closed.
  const may = options.mayAnnotateExperiment ?? (options.mayAnnotate ? () => false : undefined);
  if (!owner || (may && !(await may(owner)))) return null;
  // Its cells are read only for a caller who may annotate them.
  if (!(await owner.hasCell(cellId))) return null;
  // The experiment's author stands for the key that made the call: the read rule reads it so.
  return { agent_id: owner.agent_id, api_key_id: owner.author };
}

/** A value through one of the schemas; a 400 naming the first wrong path (`annotations.0.metric.value`). */
function checked<Name extends 'add' | 'query'>(name: Name, value: unknown) {
  const result = annotationSchemas()[name].safeParse(value ?? {});
  if (!result.success) throw firstIssueError('Annotation', result.error);
  return result.data as ReturnType<ReturnType<typeof annotationSchemas>[Name]['parse']>;
}

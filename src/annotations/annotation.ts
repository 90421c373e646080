import type { CallQueryScope } from '../records/call-query.ts';

/** What an annotation is about: a recorded call, or a cell of an experiment (`<version id>.<input id>`). */
export type AnnotationTarget = { call_id: string } | { experiment_id: string; cell_id: string };

/** A number measured on the target (`{ name: "accuracy", value: 0.8 }`), for filtering and averages. */
export interface AnnotationMetric {
  name: string;
  value: number;
}

/** A note on a call: text, a metric or both, optionally about one field of its structured output. */
export interface Annotation {
  /** `ann_` + a UUIDv7: ids sort by creation time. */
  id: string;
  target: AnnotationTarget;
  /** The annotated call's agent, as its record has it: never taken from the caller. */
  agent_id: string | null;
  /** One field of a structured output, as a dotted path (`items.0.price`); `null`: the whole output. */
  key_path: string | null;
  text: string | null;
  metric: AnnotationMetric | null;
  /** The `serve` API key that wrote it (its id); `null` in-process unless given. */
  author: string | null;
  /** ISO 8601, UTC. */
  created_at: string;
}

/** What a caller writes: the target, and text and/or a metric. */
export interface AnnotationInput {
  target: AnnotationTarget;
  key_path?: string | undefined;
  text?: string | undefined;
  metric?: AnnotationMetric | undefined;
}

/** Which annotations: every condition given must hold. */
export interface AnnotationQuery {
  agent_id?: string | undefined;
  call_id?: string | undefined;
  experiment_id?: string | undefined;
  /** Annotations carrying a metric of this name. */
  metric?: string | undefined;
  /** Written at or after this ISO 8601 time. */
  since?: string | undefined;
  /** Written before this ISO 8601 time. */
  until?: string | undefined;
  /** Page size: default 100, at most 1000. */
  limit?: number | undefined;
  /** `next_cursor` of the previous page. */
  cursor?: string | undefined;
}

export interface AnnotationPage {
  object: 'list';
  /** Newest first. */
  data: Annotation[];
  /** Pass as `cursor` for the next (older) page; `null` on the last page. */
  next_cursor: string | null;
}

/** An annotation as stored: with the key that made the annotated call, so a scope of own calls reads it. */
export interface StoredAnnotation extends Annotation {
  call_api_key_id: string | null;
}

/** A query checked and made explicit for the stores: times in stored form, a limit, the caller's scope. */
export interface NormalizedAnnotationQuery extends Omit<AnnotationQuery, 'limit'> {
  limit: number;
  scope: CallQueryScope;
}

export const MAX_ANNOTATIONS_PER_ADD = 100;
export const MAX_ANNOTATION_TEXT = 10_000;
export const DEFAULT_ANNOTATION_LIMIT = 100;
export const MAX_ANNOTATION_LIMIT = 1000;

/** The public form of a stored row. */
export function publicAnnotation(stored: StoredAnnotation): Annotation {
  const { call_api_key_id: _, ...annotation } = stored;
  return annotation;
}

/** Whether a stored row passes a normalized query: what the memory store runs, and the SQL stores compile. */
export function matchesAnnotationQuery(row: StoredAnnotation, query: NormalizedAnnotationQuery): boolean {
  const target = row.target as Partial<Record<'call_id' | 'experiment_id', string>>;
  const { scope } = query;
  if (scope.agent_ids && (row.agent_id === null || !scope.agent_ids.includes(row.agent_id))) return false;
  if (scope.api_key_ids && (row.call_api_key_id === null || !scope.api_key_ids.includes(row.call_api_key_id)))
    return false;
  if (query.agent_id !== undefined && row.agent_id !== query.agent_id) return false;
  if (query.call_id !== undefined && target.call_id !== query.call_id) return false;
  if (query.experiment_id !== undefined && target.experiment_id !== query.experiment_id) return false;
  if (query.metric !== undefined && row.metric?.name !== query.metric) return false;
  if (query.since !== undefined && row.created_at < query.since) return false;
  if (query.until !== undefined && row.created_at >= query.until) return false;
  return query.cursor === undefined || row.id < query.cursor;
}

import type { AnnotationPage, NormalizedAnnotationQuery, StoredAnnotation } from './annotation.ts';

/**
 * Where annotations live: beside the call records (the SQLite file, the PostgreSQL database) or in memory. A call
 * store offers its own (`CallStore.annotationStore`); `gateway.annotations` checks, resolves and scopes, the store
 * only keeps and filters.
 */
export interface AnnotationStore {
  /** Stores the rows, all or none. */
  insert(rows: StoredAnnotation[]): Promise<void>;
  /** The rows passing `query`, newest first, one page. */
  list(query: NormalizedAnnotationQuery): Promise<AnnotationPage>;
}

/** A page of `limit` rows from `limit + 1` fetched, newest first. */
export function pageOf(rows: StoredAnnotation[], limit: number): AnnotationPage {
  const more = rows.length > limit;
  const data = rows.slice(0, limit).map(({ call_api_key_id: _, ...annotation }) => annotation);
  return { object: 'list', data, next_cursor: more ? (data.at(-1)?.id ?? null) : null };
}

/** Annotations: text and metrics on recorded calls, kept beside them (`gateway.annotations`). */

export type { NormalizedAnnotationQuery, StoredAnnotation } from './annotation.ts';
export type { AnnotationStore } from './annotation-store.ts';
export { MemoryAnnotationStore, PostgresAnnotationStore, SqliteAnnotationStore } from './annotation-stores.ts';
export type { Annotations } from './annotations.ts';
export * from './caller-types.ts';
export { StoredAnnotations } from './stored-annotations.ts';

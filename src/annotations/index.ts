/** Annotations: text and metrics on recorded calls, kept beside them (`gateway.annotations`). */
export type {
  Annotation,
  AnnotationInput,
  AnnotationMetric,
  AnnotationPage,
  AnnotationQuery,
  AnnotationTarget,
  NormalizedAnnotationQuery,
  StoredAnnotation,
} from './annotation.ts';
export type { AnnotationStore } from './annotation-store.ts';
export { MemoryAnnotationStore, PostgresAnnotationStore, SqliteAnnotationStore } from './annotation-stores.ts';
export type { AddAnnotationsOptions, Annotations, ListAnnotationsOptions } from './annotations.ts';
export { StoredAnnotations } from './stored-annotations.ts';

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
export type { AddAnnotationsOptions, Annotations, ListAnnotationsOptions } from './annotations.ts';
export { MemoryAnnotationStore } from './memory-annotation-store.ts';
export { PostgresAnnotationStore } from './postgres-annotation-store.ts';
export { SqliteAnnotationStore } from './sqlite-annotation-store.ts';

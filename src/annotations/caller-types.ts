/** The annotation shapes a caller names (switchyard-llm/records re-exports them as they are, this folder's index too). */
export type {
  Annotation,
  AnnotationInput,
  AnnotationMetric,
  AnnotationPage,
  AnnotationQuery,
  AnnotationTarget,
} from './annotation.ts';
export type { AddAnnotationsOptions, ListAnnotationsOptions } from './annotations.ts';

/** The annotation shapes a caller names (switchyard-llm/records and this folder's index re-export them as they are). */
export type {
  Annotation,
  AnnotationInput,
  AnnotationMetric,
  AnnotationPage,
  AnnotationQuery,
  AnnotationTarget,
} from './annotation.ts';
export type { AddAnnotationsOptions, ListAnnotationsOptions } from './annotations.ts';

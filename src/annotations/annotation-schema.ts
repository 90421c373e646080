import type * as Zod from 'zod';
import { zod } from '../internal/load-zod.ts';
import {
  DEFAULT_ANNOTATION_LIMIT,
  MAX_ANNOTATION_LIMIT,
  MAX_ANNOTATION_TEXT,
  MAX_ANNOTATIONS_PER_ADD,
} from './annotation.ts';

/**
 * The zod schemas of annotations (the MCP tools' input schemas too), built on first use: importing the package must
 * not load zod (~100 ms).
 */
export const annotationSchemas = (): AnnotationSchemas => (schemas ??= buildSchemas(zod().z));
let schemas: AnnotationSchemas | undefined;
type AnnotationSchemas = ReturnType<typeof buildSchemas>;

function buildSchemas(z: typeof Zod.z) {
  // No NUL: PostgreSQL's text cannot hold it, and every store must answer alike.
  const noNul = (value: string) => !value.includes('\u0000');
  const text = (max: number) => z.string().min(1).max(max).refine(noNul, 'must not contain U+0000');
  const id = text(200);
  const instant = z
    .string()
    .max(40)
    .refine((value) => !Number.isNaN(Date.parse(value)), 'must be an ISO 8601 date or time');

  const target = z
    .union([
      z.object({ call_id: id.describe('The id of a recorded call (switchyard.call_id, a query row id).') }).strict(),
      z
        .object({ experiment_id: id, cell_id: id })
        .strict()
        .describe('An experiment cell: its experiment id and cell id (<version id>.<input id>).'),
    ])
    .describe('What is annotated: { call_id } or an experiment cell { experiment_id, cell_id }.');

  const annotation = z
    .object({
      target,
      key_path: text(200)
        .regex(/^[^.]+(\.[^.]+){0,19}$/, 'must be dot-separated field names or indexes, at most 20')
        .optional()
        .describe('One field of a structured output, as a dotted path (items.0.price). Omit for the whole call.'),
      text: text(MAX_ANNOTATION_TEXT).optional().describe(`A note, at most ${MAX_ANNOTATION_TEXT} characters.`),
      metric: z
        .object({
          name: text(100).describe('What is measured: accuracy, user_rating…'),
          value: z.number().finite().describe('A finite number.'),
        })
        .strict()
        .optional()
        .describe('A number measured on the target, to filter on and average.'),
    })
    .strict()
    .refine((value) => value.text !== undefined || value.metric !== undefined, {
      message: 'needs text, a metric or both',
      path: ['text'],
    });

  const add = z
    .object({
      annotations: z
        .array(annotation)
        .min(1)
        .max(MAX_ANNOTATIONS_PER_ADD)
        .describe(`At most ${MAX_ANNOTATIONS_PER_ADD} annotations; stored all or none.`),
    })
    .strict();

  const query = z
    .object({
      agent_id: id.optional().describe('Annotations of this agent’s calls.'),
      call_id: id.optional().describe('Annotations of this call.'),
      experiment_id: id.optional().describe('Annotations of this experiment’s cells.'),
      metric: text(100).optional().describe('Annotations carrying a metric of this name.'),
      since: instant.optional().describe('Written at or after this ISO 8601 time.'),
      until: instant.optional().describe('Written before this ISO 8601 time.'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_ANNOTATION_LIMIT)
        .optional()
        .describe(`Page size: default ${DEFAULT_ANNOTATION_LIMIT}, at most ${MAX_ANNOTATION_LIMIT}.`),
      cursor: id.optional().describe('next_cursor of the previous page.'),
    })
    .strict();

  return { annotation, add, query };
}

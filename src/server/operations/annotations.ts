import { madeBy, madeByAuthor, mayAnnotate, readScope } from '../../access/reads.ts';
import { READS_CALLS } from '../../access/scopes.ts';
import type { AnnotationInput, AnnotationQuery } from '../../annotations/annotation.ts';
import { annotationSchemas } from '../../annotations/annotation-schema.ts';
import { firstIssueError } from '../../internal/first-issue.ts';
import { defineOperation, type HttpParts } from '../operation.ts';

/** 100 annotations of 10,000 characters each, escaped, with room to spare. */
const MAX_ANNOTATIONS_BYTES = 2 * 1024 * 1024;
const QUERY_PARAMS = ['agent_id', 'call_id', 'experiment_id', 'metric', 'since', 'until', 'cursor'] as const;
const invalid = (error: Parameters<typeof firstIssueError>[1]) => firstIssueError('Annotation', error);

/**
 * `POST /v1/annotations`, `add_annotations`: annotations on the calls (and experiment cells) the key may annotate;
 * any other is answered as one that does not exist.
 */
export const addAnnotations = defineOperation({
  name: 'add_annotations',
  description:
    'Annotates recorded calls: per annotation a target ({ call_id }), text and/or a metric ({ name, value }), ' +
    'optionally key_path, one field of a structured output (items.0.price). Stored all or none. A call outside ' +
    'the key’s agents is answered as one that does not exist.',
  scope: 'annotations:write',
  input: () => annotationSchemas().add,
  invalid,
  async handle({ annotations }, { gateway, access }) {
    const { key } = access;
    const data = await gateway.annotations.add(annotations as AnnotationInput[], {
      author: key.id,
      mayAnnotate: (record) => mayAnnotate(key, madeBy(record), access),
      // A cell as a call made by the experiment's author for its agent.
      mayAnnotateExperiment: (owner) => mayAnnotate(key, madeByAuthor(owner), access),
    });
    return { object: 'list' as const, data };
  },
  http: {
    method: 'POST',
    path: /^\/v1\/annotations$/,
    body: MAX_ANNOTATIONS_BYTES,
    // One annotation as the body (end-user feedback), or a list under `annotations`.
    input({ body }) {
      const many = typeof body === 'object' && body !== null && 'annotations' in body;
      const input = many ? (body as { annotations: unknown }).annotations : body;
      return { annotations: Array.isArray(input) ? input : [input] };
    },
    status: 201,
  },
});

/** `GET /v1/annotations`, `get_annotations`: the annotations of the calls the key reads. */
export const getAnnotations = defineOperation({
  name: 'get_annotations',
  description:
    'Lists annotations newest first, filtered by agent_id, call_id, experiment_id, metric (name), since, ' +
    'until; limit and cursor page. Only those of the calls this key reads.',
  scope: READS_CALLS,
  input: () => annotationSchemas().query,
  invalid,
  hints: { readOnlyHint: true },
  async handle(query, { gateway, access }) {
    const scope = await readScope(access.key, access);
    return gateway.annotations.list(query as AnnotationQuery, { scope });
  },
  http: { method: 'GET', path: /^\/v1\/annotations$/, input: queryOf },
});

function queryOf({ query }: HttpParts): Record<string, string | number> {
  const input: Record<string, string | number> = {};
  for (const name of QUERY_PARAMS) {
    const value = query.get(name);
    if (value !== null) input[name] = value;
  }
  const limit = query.get('limit');
  // A number for the schema to check; anything else left as text, for its 400 to name `limit`.
  if (limit !== null) input.limit = /^\d{1,6}$/.test(limit) ? Number(limit) : limit;
  return input;
}

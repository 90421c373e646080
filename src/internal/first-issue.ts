import type * as Zod from 'zod';
import { InvalidRequestError } from '../errors.ts';

/**
 * A 400 for the first problem zod found, naming its path (`versions.0.model`; for an unknown field, the field:
 * `filter.colour`): `<what>: <path>: <message>`.
 */
export function firstIssueError(what: string, error: Zod.ZodError, whole = 'the input'): InvalidRequestError {
  const issue = error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const path = [...issue.path, ...keys.slice(0, 1)].join('.');
  return new InvalidRequestError(`${what}: ${path || whole}: ${issue.message}`, path || null);
}

import { InvalidRequestError } from '../../errors.ts';

/** A model id as Google and Vertex (Claude's `…@20241022`) spell one: one path segment, never `.` or `..`. */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/;
const COLLECTIONS = ['models/', 'tunedModels/'];

/**
 * The model name, checked before it goes into a Google URL's path (`…/models/<name>:generateContent`) as the caller
 * wrote it: a name with `/..`, `?` or `#` would point the gateway's own key at another of Google's endpoints.
 */
export function checkedModelName(model: string, provider: string): string {
  const collection = COLLECTIONS.find((prefix) => model.startsWith(prefix));
  if (MODEL_ID.test(collection ? model.slice(collection.length) : model)) return model;
  throw new InvalidRequestError(
    `"${model.slice(0, 80)}" is not a model name ${provider} can be sent: a model id is letters, digits, ".", "-", ` +
      '"_" and "@" (after "models/" or "tunedModels/" at most).',
    'model',
    'invalid_model',
  );
}

import { InvalidRequestError } from '../errors.ts';
import { isSensitiveDataMode } from '../guardrails/mode.ts';
import type { EmbeddingRequest } from './embedding-types.ts';

/** OpenAI's own limit on inputs per request. */
const MAX_EMBEDDING_INPUTS = 2048;
const KNOWN = new Set(['model', 'input', 'dimensions', 'encoding_format', 'user', 'metadata', 'sensitive_data']);

/** Checks an embeddings request as OpenAI would, with messages that say what to send instead. */
export function validateEmbeddingRequest(request: unknown): asserts request is EmbeddingRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request))
    throw new InvalidRequestError('The request body must be a JSON object.');
  const body = request as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    if (!KNOWN.has(key))
      throw new InvalidRequestError(
        `Unrecognized request parameter "${key}". Supported: ${[...KNOWN].join(', ')}.`,
        key,
        'unknown_parameter',
      );
  }
  if (typeof body.model !== 'string' || body.model === '')
    throw new InvalidRequestError('"model" must be an embedding model id.', 'model');
  const input = body.input;
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0)
    throw new InvalidRequestError('"input" must be a string or a non-empty array of strings.', 'input');
  if (texts.length > MAX_EMBEDDING_INPUTS)
    throw new InvalidRequestError(
      `"input" holds ${texts.length} items; the limit is ${MAX_EMBEDDING_INPUTS}.`,
      'input',
    );
  for (const [index, text] of texts.entries()) {
    if (typeof text !== 'string') {
      throw new InvalidRequestError(
        `input[${index}] is not a string: token arrays are not supported, as not every provider takes them. ` +
          'Send the text.',
        `input[${index}]`,
      );
    }
    if (text === '') throw new InvalidRequestError(`input[${index}] is empty.`, `input[${index}]`);
  }
  if (body.dimensions !== undefined && (!Number.isInteger(body.dimensions) || (body.dimensions as number) < 1))
    throw new InvalidRequestError('"dimensions" must be a positive integer.', 'dimensions');
  if (body.encoding_format !== undefined && body.encoding_format !== 'float' && body.encoding_format !== 'base64')
    throw new InvalidRequestError('"encoding_format" must be "float" or "base64".', 'encoding_format');
  if (body.user !== undefined && typeof body.user !== 'string')
    throw new InvalidRequestError('"user" must be a string.', 'user');
  if (body.sensitive_data !== undefined && !isSensitiveDataMode(body.sensitive_data))
    throw new InvalidRequestError('"sensitive_data" must be "off", "mask" or "block".', 'sensitive_data');
  const metadata = body.metadata;
  if (metadata !== undefined && metadata !== null) {
    if (
      typeof metadata !== 'object' ||
      Array.isArray(metadata) ||
      Object.values(metadata).some((v) => typeof v !== 'string')
    )
      throw new InvalidRequestError('"metadata" must be an object of strings.', 'metadata');
  }
}

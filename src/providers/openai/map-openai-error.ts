import { isRetryableStatus, type ProviderError } from '../../errors.ts';
import { parseRetryAfter } from '../../internal/parse-retry-after.ts';
import { isPlainObject } from '../../internal/shape.ts';
import type { ErrorClassifier } from '../error-mapper.ts';
import {
  abortedByCaller,
  type ErrorScope,
  fromStatus,
  invalidResponse,
  streamError,
  timedOut,
  unreachable,
} from '../provider-errors.ts';
import { WireTimeoutError } from '../wire/http-sender.ts';
import { HttpStatusError, StreamFailure } from '../wire/wire-post.ts';

/**
 * An OpenAI-compatible provider's failures, through either transport: the wire transport's (`HttpStatusError`,
 * `StreamFailure`, a timeout) read as the `openai` SDK reads the same answers, and the SDK's own (told apart by class
 * name, so a second copy of the SDK classifies alike).
 */
export const mapOpenAIError: ErrorClassifier = (error, scope) => {
  if (error instanceof HttpStatusError) return fromAnswer(scope, error);
  if (error instanceof StreamFailure) return streamError(scope, messageOf(error.body) ?? '(no status code or body)');
  if (error instanceof WireTimeoutError) return timedOut(scope, error);
  const sdkName = (error as Error)?.constructor?.name ?? '';
  if (sdkName === 'APIUserAbortError' || (error as Error)?.name === 'AbortError') return abortedByCaller(scope, error);
  if (sdkName === 'APIConnectionTimeoutError') return timedOut(scope, error);
  if (error instanceof SyntaxError) return invalidResponse(scope, `the body is not JSON (${error.message})`, error);
  // A TypeError the SDK throws while reading an answer of the wrong shape; fetch's network failures have a cause.
  if (error instanceof TypeError && error.cause === undefined) return invalidResponse(scope, error.message, error);
  const apiError = error as {
    status?: number;
    message?: string;
    code?: string | null;
    param?: string | null;
    headers?: Headers;
  };
  if (sdkName === 'APIError' && apiError.status === undefined)
    return streamError(scope, String(apiError.message), { cause: error });
  if (sdkName === 'APIConnectionError' || apiError.status === undefined) return unreachable(scope, error);
  // The SDK's message starts with the status ("429 Rate limit…"); ours says it once.
  const message = (apiError.message ?? 'no message').replace(/^\d{3} /, '');
  return statusFailure(scope, apiError.status, message, apiError, error);
};

function statusFailure(
  scope: ErrorScope,
  status: number,
  message: string,
  fields: { code?: string | null; param?: string | null; headers?: Headers },
  cause: unknown,
): ProviderError {
  const code = fields.code ?? null;
  return fromStatus(scope, status, message, {
    code,
    // OpenAI names the rejected field in `param`; a schema strict mode cannot take also has its own code.
    param: fields.param ?? (code === 'invalid_json_schema' ? 'response_format' : null),
    // insufficient_quota is a 429 that will not get better by waiting.
    retryable: isRetryableStatus(status) && code !== 'insufficient_quota',
    retryAfterMs: parseRetryAfter(fields.headers),
    cause,
  });
}

/** An error status as the SDK words it: the body's `error.message`, else its `error` as JSON, else the raw text. */
function fromAnswer(scope: ErrorScope, answer: HttpStatusError): ProviderError {
  const parsed = answer.json as { error?: unknown } | undefined;
  const error = isPlainObject(parsed) ? parsed.error : undefined;
  const message = messageOf(error) ?? (parsed === undefined && answer.text ? answer.text : 'status code (no body)');
  const { code, param } = isPlainObject(error) ? (error as { code?: unknown; param?: unknown }) : {};
  const fields = {
    code: typeof code === 'string' ? code : null,
    param: typeof param === 'string' ? param : null,
    headers: answer.headers,
  };
  return statusFailure(scope, answer.status, message, fields, answer);
}

/** The SDK's wording of an error object: its `message`, else the object as JSON. */
function messageOf(error: unknown): string | undefined {
  const message = isPlainObject(error) ? error.message : undefined;
  if (message) return typeof message === 'string' ? message : JSON.stringify(message);
  return error ? JSON.stringify(error) : undefined;
}

import { isRetryableStatus } from '../../errors.ts';
import { parseRetryAfter } from '../../internal/parse-retry-after.ts';
import type { ErrorClassifier } from '../error-mapper.ts';
import {
  abortedByCaller,
  fromStatus,
  invalidResponse,
  streamError,
  timedOut,
  unreachable,
} from '../provider-errors.ts';

/** The `openai` SDK's failures (told apart by class name, so a second copy of the SDK classifies alike). */
export const mapOpenAIError: ErrorClassifier = (error, scope) => {
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
  const status = apiError.status;
  const code = apiError.code ?? null;
  // The SDK's message starts with the status ("429 Rate limit…"); ours says it once.
  return fromStatus(scope, status, (apiError.message ?? 'no message').replace(/^\d{3} /, ''), {
    code,
    // OpenAI names the rejected field in `param`; a schema strict mode cannot take also has its own code.
    param: apiError.param ?? (code === 'invalid_json_schema' ? 'response_format' : null),
    // insufficient_quota is a 429 that will not get better by waiting.
    retryable: isRetryableStatus(status) && code !== 'insufficient_quota',
    retryAfterMs: parseRetryAfter(apiError.headers),
    cause: error,
  });
};

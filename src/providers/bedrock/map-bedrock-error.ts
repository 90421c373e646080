import { isRetryableStatus } from '../../errors.ts';
import type { ErrorClassifier } from '../error-mapper.ts';
import { abortedByCaller, fromStatus, streamError, timedOut, unreachable } from '../provider-errors.ts';

/** Bedrock's exceptions that mean "try again": throttled, the model loading or busy, the service down. */
const RETRYABLE = new Set([
  'ThrottlingException',
  'ModelNotReadyException',
  'ServiceUnavailableException',
  'InternalServerException',
  'ModelTimeoutException',
  'ModelStreamErrorException',
]);

/** The AWS SDK's failures: an exception named by Bedrock, with the HTTP status in `$metadata`. */
export const mapBedrockError: ErrorClassifier = (error, scope, { phase }) => {
  const failure = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  if (failure?.name === 'AbortError') return abortedByCaller(scope, error);
  if (failure?.name === 'TimeoutError' || failure?.name === 'RequestTimeout') return timedOut(scope, error);
  const name = failure?.name ?? 'Error';
  const status = failure?.$metadata?.httpStatusCode;
  if (phase === 'stream' && RETRYABLE.has(name))
    return streamError(scope, `${name}: ${failure.message ?? ''}`, { status: status ?? 503, code: name, cause: error });
  if (status === undefined) {
    if (name === 'CredentialsProviderError')
      return fromStatus(scope, 401, `no AWS credentials were found (${failure.message})`, {
        code: 'missing_credentials',
        retryable: false,
        cause: error,
      });
    return unreachable(scope, error, phase);
  }
  return fromStatus(scope, status, failure.message ?? name, {
    code: name,
    detail: name,
    retryable: RETRYABLE.has(name) || isRetryableStatus(status),
    cause: error,
  });
};

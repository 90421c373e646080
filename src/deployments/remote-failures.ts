import { isRetryableStatus } from '../errors.ts';
import { redactedCause, redactSecrets } from '../internal/redact.ts';
import { ResponseTooLargeError } from '../internal/response-limit.ts';
import { DeploymentStoreError } from './errors.ts';

/**
 * The ways a request of `RemoteDeploymentStore` fails, as `DeploymentStoreError`s that name the URL (shown without
 * credentials) and never a secret of the store.
 */

/** A request that brought no answer: the answer was too large, or the service could not be reached. */
export function failedRequest(
  url: string,
  error: unknown,
  secrets: ReadonlyArray<string>,
  maxResponseBytes: number,
): DeploymentStoreError {
  const tooLarge = answerTooLarge(url, error, maxResponseBytes);
  if (tooLarge) return tooLarge;
  const reason =
    error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
  return new DeploymentStoreError(
    `The deployment store at ${url} could not be reached: ${redactSecrets(reason, secrets)}.`,
    { location: url, code: 'deployment_store_unavailable', cause: redactedCause(error, secrets) },
  );
}

/** The error for an answer past `maxResponseBytes` (the error or its cause says so), else `undefined`. */
export function answerTooLarge(
  url: string,
  error: unknown,
  maxResponseBytes: number,
): DeploymentStoreError | undefined {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (!(error instanceof ResponseTooLargeError || cause instanceof ResponseTooLargeError)) return undefined;
  return new DeploymentStoreError(
    `The deployment store at ${url} sent an answer larger than ${maxResponseBytes} bytes (maxResponseBytes); it ` +
      'was not read further.',
    { location: url, code: 'response_too_large' },
  );
}

/** The caller's signal fired while it waited for the store. */
export function abortedLookup(url: string, signal: AbortSignal): DeploymentStoreError {
  return new DeploymentStoreError(`The request to the deployment store at ${url} was aborted by the caller.`, {
    location: url,
    code: 'aborted',
    cause: signal.reason,
  });
}

/** An error answer: its status and the service's message (or the start of its text), redacted. */
export async function statusFailure(
  url: string,
  response: Response,
  secrets: ReadonlyArray<string>,
): Promise<DeploymentStoreError> {
  const text = await response.text().catch(() => '');
  let detail = text.slice(0, 300);
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') detail = message;
  } catch {
    // not JSON: keep the text
  }
  detail = redactSecrets(detail.trim(), secrets);
  return new DeploymentStoreError(
    `The deployment store at ${url} answered ${response.status}${detail ? `: ${detail}` : ''}.`,
    {
      location: url,
      upstreamStatus: response.status,
      code: isRetryableStatus(response.status) ? 'deployment_store_unavailable' : 'deployment_store_error',
    },
  );
}

/** The work's outcome, or the caller's abort as soon as the signal fires (the work itself goes on). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, aborted: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(aborted());
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

import { AuthenticationError, InternalError, isRetryableStatus, ProviderError, RateLimitError } from '../errors.ts';
import { describeLocalFault } from '../internal/local-fault.ts';
import { redactedCause, redactSecrets } from '../internal/redact.ts';

/**
 * The errors an adapter raises, built in one place so every provider words, classifies and redacts them alike.
 * Each adapter only decides which of these an SDK failure is; the gateway's retry and fallback read `retryable`.
 */
export interface ErrorScope {
  /** Provider id, as in `<provider>/<model>`. */
  provider: string;
  /** The model name the provider was sent. */
  model: string;
  /** Credentials of this provider: removed from every message and cause. */
  secrets: ReadonlyArray<string | undefined>;
  baseURL: string;
  timeoutMs: number;
}

/** What errors that do not involve the transport need to know: who was called. */
type Who = Pick<ErrorScope, 'provider' | 'model'> & Partial<ErrorScope>;

const label = (scope: Who) => `${scope.provider} (${scope.model})`;

function failure(
  scope: Who,
  message: string,
  fields: { status: number; code: string; retryable: boolean; type?: string; cause?: unknown },
): ProviderError {
  return new ProviderError(redactSecrets(message, scope.secrets ?? []), {
    provider: scope.provider,
    model: scope.model,
    status: fields.status,
    code: fields.code,
    retryable: fields.retryable,
    ...(fields.type ? { type: fields.type } : {}),
    ...(fields.cause === undefined ? {} : { cause: redactedCause(fields.cause, scope.secrets ?? []) }),
  });
}

/** The call's total time (`retry.totalTimeoutMs`) ran out, with an attempt in flight or before the next one. */
export function deadlineExceeded(scope: Who, totalMs: number): ProviderError {
  return failure(
    scope,
    `The call ran out of its total time of ${totalMs} ms (retry.totalTimeoutMs) while trying ${label(scope)}.`,
    {
      status: 504,
      code: 'deadline_exceeded',
      type: 'timeout_error',
      retryable: false,
    },
  );
}

/**
 * No content within `firstTokenTimeoutMs` of the start of a streamed attempt: retried, as nothing reached the caller.
 */
export function firstTokenTimeout(scope: Who, limitMs: number): ProviderError {
  return failure(scope, `${label(scope)} sent no content within ${limitMs} ms (firstTokenTimeoutMs).`, {
    status: 408,
    code: 'first_token_timeout',
    type: 'timeout_error',
    retryable: true,
  });
}

/** A stream sent nothing for `streamIdleTimeoutMs`. */
export function streamIdle(scope: Who, limitMs: number): ProviderError {
  return failure(scope, `The stream from ${label(scope)} sent nothing for ${limitMs} ms (streamIdleTimeoutMs).`, {
    status: 408,
    code: 'stream_idle_timeout',
    type: 'timeout_error',
    retryable: true,
  });
}

/** The caller's signal fired: not the provider's fault, never retried. */
export function abortedByCaller(scope: ErrorScope, cause?: unknown): ProviderError {
  return failure(scope, `The request to ${label(scope)} was aborted by the caller.`, {
    status: 499,
    code: 'aborted',
    retryable: false,
    cause,
  });
}

/** No answer within the per-attempt timeout. */
export function timedOut(scope: ErrorScope, cause?: unknown): ProviderError {
  return failure(scope, `${label(scope)} did not answer within ${scope.timeoutMs} ms.`, {
    status: 408,
    code: 'timeout',
    type: 'timeout_error',
    retryable: true,
    cause,
  });
}

/** The connection could not be made, or broke (before or during a stream). */
export function unreachable(scope: ErrorScope, cause: unknown, phase: 'request' | 'stream' = 'request'): ProviderError {
  const detail = describeCause(cause);
  const message =
    phase === 'stream'
      ? `The connection to ${label(scope)} broke during the stream: ${detail}`
      : `Could not reach ${label(scope)} at ${scope.baseURL}: ${detail}`;
  return failure(scope, message, { status: 502, code: 'connection_error', type: 'api_error', retryable: true, cause });
}

/**
 * The provider answered 2xx with something that is not a valid answer of its wire format: a body that is not JSON,
 * or JSON of the wrong shape. Retried like a 5xx: the next try, or the next provider, may answer properly.
 */
export function invalidResponse(scope: Who, problem: string, cause?: unknown): ProviderError {
  return failure(scope, `${label(scope)} sent an answer that is not valid: ${problem}.`, {
    status: 502,
    code: 'invalid_response',
    type: 'api_error',
    retryable: true,
    cause,
  });
}

/**
 * The provider's safety filter refused the request (an answer 2xx with nothing in it, and the reason it gives): the
 * request's refusal, as OpenAI's images API answers one, not retried (each try is paid for, and refused again).
 */
export function contentBlocked(scope: Who, reason: string): ProviderError {
  return failure(scope, `${label(scope)} refused the request: its safety filter blocked it (${reason}).`, {
    status: 400,
    code: 'content_policy_violation',
    type: 'invalid_request_error',
    retryable: false,
  });
}

/**
 * A failure of this process while calling the provider (a bug, a runtime without an API the package needs): never
 * the provider's, and not retried. Names what failed and where.
 */
export function localFailure(scope: Who, error: unknown): InternalError {
  const what = describeLocalFault(error);
  const message = `A failure inside this process while calling ${label(scope)}, not the provider's: ${what}`;
  return new InternalError(redactSecrets(message, scope.secrets ?? []), redactedCause(error, scope.secrets ?? []));
}

/** An `InternalError` somewhere in the error's cause chain (an SDK wraps what our fetch threw), if there is one. */
export function internalErrorWithin(error: unknown): InternalError | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 6 && cause instanceof Error; depth++, cause = cause.cause)
    if (cause instanceof InternalError) return cause;
  return undefined;
}

/**
 * The answer grew past the transport's size limit (`maxResponseBytes`), somewhere in the error's cause chain; it
 * was not read further. Not retried: the same request would most likely grow as large again.
 */
export function answerTooLarge(scope: ErrorScope, error: unknown): ProviderError | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 6 && cause instanceof Error; depth++, cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (code !== 'response_too_large' && code !== 'UND_ERR_RES_EXCEEDED_MAX_SIZE') continue;
    const limit = (cause as { limitBytes?: unknown }).limitBytes;
    const size = typeof limit === 'number' ? `${limit} bytes (maxResponseBytes)` : 'maxResponseBytes';
    return failure(scope, `${label(scope)} sent an answer larger than ${size}; it was not read further.`, {
      status: 502,
      code: 'response_too_large',
      type: 'api_error',
      retryable: false,
      cause: error,
    });
  }
  return undefined;
}

/** The provider's SDK refused the request before sending it: retrying the same request cannot help. */
export function refusedBySdk(scope: ErrorScope, detail: string, cause?: unknown): ProviderError {
  return failure(scope, `The ${scope.provider} SDK refused the request to ${scope.model}: ${detail}`, {
    status: 400,
    code: 'client_error',
    retryable: false,
    cause,
  });
}

/** A stream that ended without its final event: the answer is incomplete. */
export function incompleteStream(scope: ErrorScope, detail: string): ProviderError {
  return failure(scope, `The stream from ${label(scope)} ended before ${detail}: the answer is incomplete.`, {
    status: 502,
    code: 'stream_truncated',
    type: 'api_error',
    retryable: true,
  });
}

/** An error event inside a stream that had answered 200: the model failed after the request was accepted. */
export function streamError(
  scope: ErrorScope,
  upstream: string,
  fields: { status?: number; code?: string | null; cause?: unknown } = {},
): ProviderError {
  return failure(scope, `${label(scope)} reported an error inside the stream: ${upstream}`, {
    status: fields.status ?? 502,
    code: fields.code ?? 'stream_error',
    type: 'api_error',
    retryable: true,
    cause: fields.cause,
  });
}

/**
 * An HTTP error answer: 401/403 become `AuthenticationError`, 429 `RateLimitError`, the rest `ProviderError`;
 * retryable per `isRetryableStatus` unless the provider said otherwise (a 429 for an exhausted quota).
 */
export function fromStatus(
  scope: ErrorScope,
  status: number,
  upstream: string,
  fields: {
    code?: string | null;
    param?: string | null;
    retryAfterMs?: number | undefined;
    retryable?: boolean;
    cause?: unknown;
    /** Words after the status in the message (a provider's status name and reason). */
    detail?: string;
    /** The status the provider sent, when `status` classifies it differently (Gemini's 400 for a bad key is a 401). */
    answered?: number;
  } = {},
): ProviderError {
  const options = {
    provider: scope.provider,
    model: scope.model,
    status,
    code: fields.code ?? null,
    param: fields.param ?? null,
    retryable: fields.retryable ?? isRetryableStatus(status),
    retryAfterMs: fields.retryAfterMs,
    ...(fields.cause === undefined ? {} : { cause: redactedCause(fields.cause, scope.secrets) }),
  };
  const message = redactSecrets(
    `${label(scope)} answered ${fields.answered ?? status}${fields.detail ? ` ${fields.detail}` : ''}: ${upstream}`,
    scope.secrets,
  );
  if (status === 401 || status === 403) return new AuthenticationError(message, options);
  if (status === 429) return new RateLimitError(message, options);
  return new ProviderError(message, options);
}

/** The most telling part of a network failure: the socket error code (`ECONNREFUSED`) or the cause's message. */
function describeCause(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * A provider's token service (OAuth for Vertex AI's service accounts) did not grant a token: thrown by a provider's
 * auth, which knows no model; the mapping skeleton words it as that provider's (`tokenRequestFailed`).
 */
export class TokenRequestError extends Error {
  override readonly name = 'TokenRequestError';
  /** What the token service answered. */
  readonly status: number;

  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

/**
 * Our credentials refused by the provider's token service: a 401 that no retry mends, never "an invalid answer".
 * Its own outage (5xx) or throttling (429) stays what it is, retryable.
 */
export function tokenRequestFailed(scope: ErrorScope, error: TokenRequestError): ProviderError {
  const outage = error.status >= 500 || error.status === 429;
  return fromStatus(scope, outage ? error.status : 401, error.message, {
    answered: error.status,
    detail: 'to its token request',
    code: outage ? null : 'invalid_credentials',
    cause: error,
  });
}

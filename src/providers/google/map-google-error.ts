import { isRetryableStatus, type ProviderError } from '../../errors.ts';
import { parseRetryAfter } from '../../internal/parse-retry-after.ts';
import { redactSecrets } from '../../internal/redact.ts';
import type { ErrorClassifier } from '../error-mapper.ts';
import { type ErrorScope, fromStatus, invalidResponse, timedOut, unreachable } from '../provider-errors.ts';
import { HttpStatusError, StreamFailure } from '../wire/wire-post.ts';
import { googleErrorBody } from './google-transport.ts';

/**
 * Gemini's failures (its API's and Vertex AI's) through either transport: an error status or error event of the wire
 * transport, the SDK's ApiError with the status, or fetch's own.
 */
export const mapGoogleError: ErrorClassifier = (error, scope, { phase }) => {
  if (error instanceof HttpStatusError) {
    const body = googleErrorBody(error);
    return toApiError(scope, error.status, errorObject(body), JSON.stringify(body), error);
  }
  if (error instanceof StreamFailure) {
    const status = (errorObject(error.body)?.code as number) ?? 502;
    return toApiError(scope, status, errorObject(error.body), JSON.stringify(error.body), error);
  }
  const failure = error as {
    name?: string;
    message?: string;
    status?: unknown;
    cause?: { code?: string; message?: string };
  };
  // The SDK's own timeout aborts the request: the caller's abort was told apart before.
  if (failure?.name === 'AbortError' || failure?.name === 'TimeoutError') return timedOut(scope, error);
  if (failure?.name === 'ApiError' && typeof failure.status === 'number') {
    const message = failure.message ?? '';
    return toApiError(scope, failure.status, parseErrorBody(message), message);
  }
  // fetch's network failures are TypeErrors with the socket error as cause; a TypeError without one is the SDK
  // tripping over an answer it could not read.
  if (failure?.cause !== undefined) return unreachable(scope, error, phase);
  // The SDK could not read the body: not JSON, or not the shape it parses.
  return invalidResponse(scope, `the body could not be read (${failure?.message ?? String(error)})`, error);
};

interface GoogleErrorBody {
  code?: number;
  message?: string;
  status?: string;
  details?: Array<Record<string, unknown>>;
}

/**
 * An HTTP (or in-stream) error from Gemini. The SDK's ApiError carries only the status and the JSON body as its
 * message: `{"error":{"code","message","status","details":[ErrorInfo, RetryInfo, …]}}` (Google's error model).
 */
function toApiError(
  scope: ErrorScope,
  status: number,
  body: GoogleErrorBody | undefined,
  sdkMessage: string,
  answer?: unknown,
): ProviderError {
  const detailOf = (type: string) => body?.details?.find((detail) => String(detail['@type'] ?? '').endsWith(type));
  const reason = stringOr(detailOf('google.rpc.ErrorInfo')?.reason);
  const violations = detailOf('google.rpc.BadRequest')?.fieldViolations;
  const field = Array.isArray(violations)
    ? stringOr((violations[0] as { field?: unknown } | undefined)?.field)
    : undefined;
  const retryDelay = stringOr(detailOf('google.rpc.RetryInfo')?.retryDelay);
  const googleStatus = stringOr(body?.status);
  // An invalid key is a 400 INVALID_ARGUMENT on Gemini; callers know it as the 401 every other provider sends.
  const invalidKey = reason === 'API_KEY_INVALID';
  const label = [googleStatus, reason && reason !== googleStatus ? `(${reason})` : undefined].filter(Boolean).join(' ');
  // The SDK's error message is the raw body; the cause keeps it, redacted like everything else.
  const cause =
    answer ?? Object.assign(new Error(redactSecrets(sdkMessage, scope.secrets)), { name: 'ApiError', status });
  return fromStatus(scope, invalidKey ? 401 : status, body?.message ?? sdkMessage, {
    ...(label ? { detail: label } : {}),
    answered: status,
    code:
      status === 400 && TOO_LONG.test(body?.message ?? '')
        ? 'context_length_exceeded'
        : (reason ?? googleStatus ?? null),
    // Google names the offending field in a BadRequest detail; the JSON-Schema output is our response_format.
    param: field && /^generation_?config\.response_(json_)?schema/i.test(field) ? 'response_format' : (field ?? null),
    retryable: !invalidKey && isRetryableStatus(status),
    retryAfterMs: parseRetryAfter(undefined, retryDelay),
    cause,
  });
}

/** Gemini's words for a prompt too long for the model: "The input token count (…) exceeds the maximum number…". */
const TOO_LONG = /input token count.*exceeds the maximum/i;

/** The Google error object inside the SDK's message (which may be prefixed, e.g. "got status: …. {json}"). */
function parseErrorBody(text: string): GoogleErrorBody | undefined {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  try {
    return errorObject(JSON.parse(text.slice(start)));
  } catch {
    return undefined;
  }
}

/** The `error` member of a Google error body (Google's OpenAI-compatible endpoints wrap it in an array). */
function errorObject(parsed: unknown): GoogleErrorBody | undefined {
  const body = Array.isArray(parsed) ? parsed[0] : parsed;
  const inner = (body as { error?: unknown } | null | undefined)?.error;
  return typeof inner === 'object' && inner !== null ? (inner as GoogleErrorBody) : undefined;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

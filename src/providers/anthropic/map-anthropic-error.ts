import type { ProviderError } from '../../errors.ts';
import { parseRetryAfter } from '../../internal/parse-retry-after.ts';
import { isPlainObject } from '../../internal/shape.ts';
import type { ErrorClassifier } from '../error-mapper.ts';
import {
  abortedByCaller,
  type ErrorScope,
  fromStatus,
  invalidResponse,
  refusedBySdk,
  streamError,
  timedOut,
  unreachable,
} from '../provider-errors.ts';
import { WireTimeoutError } from '../wire/http-sender.ts';
import { HttpStatusError, StreamFailure } from '../wire/wire-post.ts';

/**
 * Anthropic's failures through either transport: the wire transport's read as `@anthropic-ai/sdk` reads the same
 * answers, and the SDK's (`sdk`, when it is the transport) told apart by its own error classes.
 */
export function anthropicErrors(sdk: typeof import('@anthropic-ai/sdk') | undefined): ErrorClassifier {
  return (error, scope) => {
    if (error instanceof HttpStatusError) return fromAnswer(scope, error);
    if (error instanceof StreamFailure) return fromErrorEvent(scope, error.body, error);
    if (error instanceof WireTimeoutError) return timedOut(scope, error);
    if (!sdk) return otherFailure(scope, error);
    if (error instanceof sdk.APIUserAbortError) return abortedByCaller(scope, error);
    if (error instanceof sdk.APIConnectionTimeoutError) return timedOut(scope, error);
    if (error instanceof sdk.APIError && !(error instanceof sdk.APIConnectionError)) {
      const upstream = error.apiMessage ?? error.message;
      const code = error.type ?? null;
      if (error.status === undefined) return streamFailure(scope, upstream, code, error);
      return statusFailure(scope, error.status, upstream, code, error.headers, error);
    }
    if (error instanceof sdk.AnthropicError && !(error instanceof sdk.APIConnectionError)) {
      // Refused by the SDK before anything was sent: retrying the same request cannot help.
      return refusedBySdk(scope, error.message, error);
    }
    return otherFailure(scope, error);
  };
}

function otherFailure(scope: ErrorScope, error: unknown): ProviderError {
  if (error instanceof SyntaxError) return invalidResponse(scope, `the body is not JSON (${error.message})`, error);
  // A connection that failed, and network failures while reading the body of a stream.
  return unreachable(scope, error);
}

function statusFailure(
  scope: ErrorScope,
  status: number,
  upstream: string,
  code: string | null,
  headers: Headers | undefined,
  cause: unknown,
): ProviderError {
  return fromStatus(scope, status, upstream, {
    code: status === 400 && TOO_LONG.test(upstream) ? 'context_length_exceeded' : code,
    param: rejectedField(upstream),
    retryAfterMs: parseRetryAfter(headers),
    cause,
  });
}

/**
 * Anthropic's words for a prompt its model's window cannot hold, in an invalid_request_error: "prompt is too long:
 * 210000 tokens > 200000 maximum", or "input length and `max_tokens` exceed context limit: …".
 */
const TOO_LONG = /prompt is too long|exceed context limit/i;

/** An `event: error` after HTTP 200: the request was accepted, then the model failed (overloaded, most often). */
function streamFailure(scope: ErrorScope, upstream: string, code: string | null, cause: unknown): ProviderError {
  return streamError(scope, upstream, { status: code === 'overloaded_error' ? 529 : 502, code, cause });
}

/** An error status as the SDK words it: the body's `error.message`, else the status and the body. */
function fromAnswer(scope: ErrorScope, answer: HttpStatusError): ProviderError {
  const body = answer.json;
  const raw = body === undefined ? answer.text || undefined : body;
  const upstream = errorOf(body)?.message ?? `${answer.status} ${wordingOf(raw) ?? 'status code (no body)'}`;
  return statusFailure(scope, answer.status, upstream, errorOf(body)?.type ?? null, answer.headers, answer);
}

function fromErrorEvent(scope: ErrorScope, body: unknown, cause: unknown): ProviderError {
  const upstream = errorOf(body)?.message ?? wordingOf(body) ?? '(no status code or body)';
  return streamFailure(scope, upstream, errorOf(body)?.type ?? null, cause);
}

/** Anthropic's error object, `{ "type": "error", "error": { "type", "message" } }`, where the body is one. */
function errorOf(body: unknown): { message?: string; type?: string } | undefined {
  const error = isPlainObject(body) ? body.error : undefined;
  if (!isPlainObject(error)) return undefined;
  return {
    ...(typeof error.message === 'string' ? { message: error.message } : {}),
    ...(typeof error.type === 'string' ? { type: error.type } : {}),
  };
}

/** A body as the SDK quotes it: its `message`, else the whole of it as JSON (text as it is). */
function wordingOf(body: unknown): string | undefined {
  if (body === undefined || body === null || body === '') return undefined;
  if (typeof body === 'string') return body;
  const message = isPlainObject(body) ? body.message : undefined;
  if (message) return typeof message === 'string' ? message : JSON.stringify(message);
  return JSON.stringify(body);
}

/**
 * The request field an Anthropic error names: its messages open with the field's path (`output_config.format.schema:
 * …`, `messages.2.content: …`). The output format is reported as our `response_format`, which it came from.
 */
function rejectedField(message: string): string | null {
  const field = /^([a-z_]+(?:\.[\w]+)*): /.exec(message)?.[1];
  if (!field) return null;
  return /^output_(config\.)?format/.test(field) ? 'response_format' : field;
}

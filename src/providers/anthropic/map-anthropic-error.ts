import { parseRetryAfter } from '../../internal/parse-retry-after.ts';
import type { ErrorClassifier } from '../error-mapper.ts';
import {
  abortedByCaller,
  fromStatus,
  invalidResponse,
  refusedBySdk,
  streamError,
  timedOut,
  unreachable,
} from '../provider-errors.ts';

/** The `@anthropic-ai/sdk` failures, told apart by the SDK's own error classes. */
export function anthropicErrors(sdk: typeof import('@anthropic-ai/sdk')): ErrorClassifier {
  return (error, scope) => {
    if (error instanceof sdk.APIUserAbortError) return abortedByCaller(scope, error);
    if (error instanceof sdk.APIConnectionTimeoutError) return timedOut(scope, error);
    if (error instanceof sdk.APIError && !(error instanceof sdk.APIConnectionError)) {
      const upstream = error.apiMessage ?? error.message;
      const code = error.type ?? null;
      if (error.status === undefined) {
        // An `event: error` after HTTP 200: the request was accepted, then the model failed (overloaded, most often).
        return streamError(scope, upstream, { status: code === 'overloaded_error' ? 529 : 502, code, cause: error });
      }
      return fromStatus(scope, error.status, upstream, {
        code,
        param: rejectedField(upstream),
        retryAfterMs: parseRetryAfter(error.headers),
        cause: error,
      });
    }
    if (error instanceof sdk.AnthropicError && !(error instanceof sdk.APIConnectionError)) {
      // Refused by the SDK before anything was sent: retrying the same request cannot help.
      return refusedBySdk(scope, error.message, error);
    }
    if (error instanceof SyntaxError) return invalidResponse(scope, `the body is not JSON (${error.message})`, error);
    // APIConnectionError, and network failures while reading the body of a stream.
    return unreachable(scope, error);
  };
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

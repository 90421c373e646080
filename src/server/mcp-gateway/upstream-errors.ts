import { redactSecrets } from '../../internal/redact.ts';
import { ResultTooLargeError } from './bounded-fetch.ts';

/** How a forwarded call ended, as records and metrics count it. */
export type McpCallOutcome =
  | 'ok'
  | 'tool_error'
  | 'timeout'
  | 'unavailable'
  | 'too_large'
  | 'upstream_error'
  | 'invalid_request'
  | 'cancelled'
  | 'forbidden';

/** A call that did not reach a result: its outcome and a sentence blaming the party at fault. */
export class McpUpstreamError extends Error {
  readonly outcome: Exclude<McpCallOutcome, 'ok' | 'tool_error' | 'forbidden'>;

  constructor(outcome: Exclude<McpCallOutcome, 'ok' | 'tool_error' | 'forbidden'>, message: string) {
    super(message);
    this.outcome = outcome;
    this.name = 'McpUpstreamError';
  }
}

/** What a failure is explained with: the server's name and bounds, its cut mark and its secrets. */
export interface FailureContext {
  server: string;
  timeoutMs: number;
  maxResultBytes: number;
  cutMark: string;
  secrets: readonly string[];
}

export function tooLarge(server: string, maxResultBytes: number): McpUpstreamError {
  return new McpUpstreamError('too_large', `The MCP server "${server}" answered more than ${maxResultBytes} bytes.`);
}

/** Whom a failure blames: the server's deadline, its absence, its size, or the error it answered. */
export function explainFailure(error: unknown, context: FailureContext): McpUpstreamError {
  if (error instanceof McpUpstreamError) return error;
  const server = `The MCP server "${context.server}"`;
  if (
    error instanceof ResultTooLargeError ||
    (error as Error | undefined)?.cause instanceof ResultTooLargeError ||
    (error as { data?: { reason?: unknown } } | undefined)?.data?.reason === context.cutMark
  )
    return tooLarge(context.server, context.maxResultBytes);
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === -32001)
    return new McpUpstreamError('timeout', `${server} did not answer within ${context.timeoutMs} ms.`);
  // Cut: a server's error text goes to the caller, the log and the record, and may echo anything it was sent.
  // And without credentials: an error may quote a URL or a header whole.
  const message = cut(redactSecrets(error instanceof Error ? error.message : String(error), context.secrets));
  // The SDK's client checks a result against the tool's own output schema: a miss is the server's answer at fault.
  if ((code === -32602 || code === -32600) && /output schema|structured content/i.test(message))
    return new McpUpstreamError('upstream_error', `${server} answered outside its tool's output schema: ${message}`);
  // Invalid params, method not found: the call's own fault (its arguments, a tool the server does not have).
  if (code === -32602 || code === -32601)
    return new McpUpstreamError('invalid_request', `${server} refused the call's arguments: ${message}`);
  if (typeof code === 'number' && code !== -32000)
    return new McpUpstreamError('upstream_error', `${server} answered an error: ${message}`);
  return new McpUpstreamError('unavailable', `${server} cannot be reached: ${message}`);
}

/** The first characters of a server's text: enough to say what failed. */
const ERROR_TEXT_CHARS = 300;
function cut(text: string): string {
  return text.length <= ERROR_TEXT_CHARS ? text : `${text.slice(0, ERROR_TEXT_CHARS)}… (${text.length} characters)`;
}

import type { HttpSender, WireRequest } from './http-sender.ts';
import type { ServerEvent } from './server-events.ts';

/**
 * The provider answered with an HTTP error status. The body is kept as text and, when it is JSON, parsed: each
 * provider's error classification reads its own error object from it.
 */
export class HttpStatusError extends Error {
  override name = 'HttpStatusError';
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed, or `undefined` when it is not JSON. */
  readonly json: unknown;
  constructor(status: number, headers: Headers, text: string) {
    super(`HTTP ${status}`);
    this.status = status;
    this.headers = headers;
    this.text = text;
    this.json = parseOrUndefined(text);
  }
}

/** A stream that was accepted (HTTP 200) reported a failure in one of its events. */
export class StreamFailure extends Error {
  override name = 'StreamFailure';
  /** The event's error object (its `error` member where it has one). */
  readonly body: unknown;
  constructor(body: unknown) {
    super('the stream reported an error');
    this.body = body;
  }
}

/** POSTs a JSON request and parses the JSON answer; an error status throws `HttpStatusError`. */
export async function postJson(send: HttpSender, request: WireRequest): Promise<unknown> {
  const response = await send(request);
  if (response.status < 200 || response.status > 299) throw await statusError(response);
  // A body that is not JSON throws SyntaxError, which every classification reads as an invalid answer.
  return JSON.parse(await response.text());
}

/**
 * POSTs a JSON request whose answer is a `text/event-stream`; resolves once the response headers arrived (an error
 * status throws `HttpStatusError` then), and yields the events as they come.
 */
export async function postForEvents(send: HttpSender, request: WireRequest): Promise<AsyncIterable<ServerEvent>> {
  const response = await send(request);
  if (response.status < 200 || response.status > 299) throw await statusError(response);
  return response.events();
}

async function statusError(response: Awaited<ReturnType<HttpSender>>): Promise<HttpStatusError> {
  // The error body is read (within the transport's size limit); one that breaks off leaves the status to speak.
  const text = await response.text().catch(() => '');
  return new HttpStatusError(response.status, response.headers(), text);
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

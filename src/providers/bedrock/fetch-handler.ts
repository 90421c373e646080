import type { BedrockRuntimeClientConfig } from '@aws-sdk/client-bedrock-runtime';
import { lazyNodeBuiltin } from '../../internal/node-builtin.ts';

const nodeStream = lazyNodeBuiltin('node:stream', 'Amazon Bedrock');

/** The parts of the AWS SDK's HttpRequest a Converse call fills in. */
interface SdkRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number | undefined;
  path: string;
  query?: Record<string, string | Array<string> | null> | undefined;
  headers: Record<string, string>;
  body?: unknown;
}

/** Headers fetch derives from the URL and the body itself (and may refuse when given). */
const DERIVED = new Set(['host', 'content-length']);

/**
 * The AWS SDK's request handler on the provider's fetch: requests signed by the SDK (SigV4, or a Bedrock API key)
 * then travel like every other provider's, on the pooled keep-alive transport with its proxy (`HTTPS_PROXY`), answer
 * limit and timeouts, or on `providers.bedrock.fetch`. The SDK's own handler speaks HTTP/2 on its own sockets, past
 * all of that. Credential providers that assume a role (STS) inherit a client's HTTP/1.1 handler, so theirs do too.
 */
export function fetchRequestHandler(
  fetchImpl: typeof fetch,
  timeoutMs: number,
): NonNullable<BedrockRuntimeClientConfig['requestHandler']> {
  const handle = async (request: SdkRequest, options?: { abortSignal?: AbortSignal | undefined }) => {
    const controller = new AbortController();
    const caller = options?.abortSignal;
    const stopOnCaller = () => controller.abort(caller?.reason);
    if (caller?.aborted) stopOnCaller();
    caller?.addEventListener('abort', stopOnCaller, { once: true });
    // The timeout bounds the wait for the answer's headers; a stream then runs under the gateway's own limits.
    const timer = setTimeout(
      () => controller.abort(new DOMException('Bedrock did not answer in time', 'TimeoutError')),
      timeoutMs,
    );
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers))
      if (!DERIVED.has(name.toLowerCase())) headers[name] = value;
    let response: Response;
    try {
      const body = bodyOf(request.body);
      response = await fetchImpl(urlOf(request), {
        method: request.method,
        headers,
        ...(body === undefined ? {} : { body: body as NonNullable<RequestInit['body']> }),
        signal: controller.signal,
      });
    } catch (error) {
      caller?.removeEventListener('abort', stopOnCaller);
      throw error;
    } finally {
      clearTimeout(timer);
    }
    const answerHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      answerHeaders[name] = value;
    });
    const body = response.body ? nodeStream().Readable.fromWeb(response.body as never) : nodeStream().Readable.from([]);
    body.once('close', () => caller?.removeEventListener('abort', stopOnCaller));
    return { response: { statusCode: response.status, reason: response.statusText, headers: answerHeaders, body } };
  };
  return {
    // The STS clients of the credential chain take this handler only when it is not HTTP/2.
    metadata: { handlerProtocol: 'http/1.1' },
    handle,
    updateHttpClientConfig: () => {},
    httpHandlerConfigs: () => ({}),
    destroy: () => {},
  } as unknown as NonNullable<BedrockRuntimeClientConfig['requestHandler']>;
}

function urlOf(request: SdkRequest): string {
  const port = request.port ? `:${request.port}` : '';
  const query = Object.entries(request.query ?? {}).flatMap(([name, value]) =>
    value === null ? [escapeURI(name)] : [value].flat().map((one) => `${escapeURI(name)}=${escapeURI(one)}`),
  );
  return `${request.protocol}//${request.hostname}${port}${request.path}${query.length ? `?${query.join('&')}` : ''}`;
}

/** RFC 3986's unreserved characters only, as the SDK's signer encodes a query. */
function escapeURI(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function bodyOf(body: unknown): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  // Converse and ConverseStream send JSON text; a streamed upload is an operation this adapter never calls.
  throw new TypeError('The Bedrock adapter sends only text or byte bodies.');
}

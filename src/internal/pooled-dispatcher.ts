import type { Agent, Dispatcher } from 'undici';
import { InternalError } from '../errors.ts';
import type { PooledFetchOptions } from './http-transport.ts';
import { describeLocalFault } from './local-fault.ts';
import { belowNodeFloor, NODE_FLOOR } from './node-floor.ts';
import { DEFAULT_MAX_RESPONSE_BYTES } from './response-limit.ts';
import { isNode, processEnv } from './runtime.ts';

/**
 * The dispatcher behind `createPooledFetch`: an undici `Agent` (keep-alive, pipelining 1 = one request at a time per
 * connection), or an `EnvHttpProxyAgent` with the same pool settings when a proxy variable is set.
 */
export async function createPooledDispatcher(options: PooledFetchOptions = {}): Promise<Dispatcher> {
  // Refused here, not left to undici: the agent's own files load below the floor too, untested (node-floor.ts).
  if (isNode() && belowNodeFloor()) throw new Error(`undici supports Node.js ${NODE_FLOOR} and newer only`);
  // The agent's own file, not undici's index: the index loads all undici has (fetch, WebSocket, its cache, its
  // mocks: 109 modules where the agent needs 22), which a server sending only through an agent kept in memory.
  const Agent = await ownFileOr(
    () => import('undici/lib/dispatcher/agent.js'),
    (undici) => undici.Agent,
  );
  const timeout = options.timeoutMs ?? 600_000;
  const agentOptions: Agent.Options = {
    connections: options.connections ?? 128,
    // Counted by undici on the wire (before decoding), at no cost per chunk; decoded bodies are counted again.
    maxResponseSize: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    pipelining: 1,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    keepAliveMaxTimeout: options.keepAliveMaxTimeoutMs ?? 600_000,
    headersTimeout: timeout,
    bodyTimeout: timeout,
    connect: { timeout: options.connectTimeoutMs ?? 10_000 },
  };
  const env = options.env ?? processEnv();
  const httpProxy = env.http_proxy ?? env.HTTP_PROXY;
  const httpsProxy = env.https_proxy ?? env.HTTPS_PROXY;
  if (!httpProxy && !httpsProxy) return new Agent(agentOptions);
  const EnvHttpProxyAgent = await ownFileOr(
    () => import('undici/lib/dispatcher/env-http-proxy-agent.js'),
    (undici) => undici.EnvHttpProxyAgent,
  );
  return new EnvHttpProxyAgent({
    ...agentOptions,
    ...(httpProxy ? { httpProxy } : {}),
    ...(httpsProxy ? { httpsProxy } : {}),
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
  });
}

type UndiciRequest = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
let undiciRequest: UndiciRequest | undefined;

/**
 * undici's `request()` on `dispatcher`. undici's index would have added it to every dispatcher's prototype; the agent
 * loaded from its own file has only `dispatch`, so the function comes from its own file too.
 */
export function requestOn(
  dispatcher: Dispatcher,
  options: Dispatcher.RequestOptions,
): Promise<Dispatcher.ResponseData> {
  // Loaded once; after that no promise of ours wraps undici's (each call of the SDK transport comes here).
  if (undiciRequest) return undiciRequest.call(dispatcher, options);
  return ownFileOr<UndiciRequest>(
    () => import('undici/lib/api/api-request.js'),
    (undici) => undici.Dispatcher.prototype.request,
  ).then((request) => (undiciRequest = request).call(dispatcher, options));
}

/** How Node.js (ESM and CommonJS) and Bun say that a module is not there, or not open to importers. */
const MISSING_MODULE = new Set(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND', 'ERR_PACKAGE_PATH_NOT_EXPORTED']);

/**
 * A part of undici from its own file, or from undici's index when that file is not where undici 8.12 keeps it: the
 * layout of `lib/` is not undici's API, and a release may move a file or close `lib/` to imports (an `exports` map).
 * The index then costs the memory the file spared, never the call. Any other failure to load is thrown as it is.
 */
async function ownFileOr<Part>(
  ownFile: () => Promise<{ default: Part }>,
  fromIndex: (undici: typeof import('undici')) => Part,
): Promise<Part> {
  try {
    const part = (await ownFile()).default;
    if (typeof part === 'function') return part;
  } catch (error) {
    if (!MISSING_MODULE.has((error as { code?: unknown } | null)?.code as string)) throw error;
  }
  return fromIndex(await import('undici'));
}

/**
 * undici could not be loaded or built (a Node.js below the floor, a runtime without an API it reads as it loads).
 * Never the provider's fault, so never "sent an answer that is not valid".
 */
export function httpClientFailure(error: unknown): never {
  throw new InternalError(`The HTTP client (undici) could not be started: ${describeLocalFault(error)}`, error);
}

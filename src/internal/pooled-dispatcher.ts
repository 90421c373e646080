import type { Agent, Dispatcher } from 'undici';
import { InternalError } from '../errors.ts';
import type { PooledFetchOptions } from './http-transport.ts';
import { describeLocalFault } from './local-fault.ts';
import { DEFAULT_MAX_RESPONSE_BYTES } from './response-limit.ts';
import { processEnv } from './runtime.ts';

/**
 * The dispatcher behind `createPooledFetch`: an undici `Agent` (keep-alive, pipelining 1 = one request at a time per
 * connection), or an `EnvHttpProxyAgent` with the same pool settings when a proxy variable is set.
 */
export async function createPooledDispatcher(options: PooledFetchOptions = {}): Promise<Dispatcher> {
  const { Agent, EnvHttpProxyAgent } = await import('undici');
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
  return new EnvHttpProxyAgent({
    ...agentOptions,
    ...(httpProxy ? { httpProxy } : {}),
    ...(httpsProxy ? { httpsProxy } : {}),
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
  });
}

/**
 * undici could not be loaded or built: on a Node.js older than it supports it fails as it loads. Never the provider's
 * fault, so never "sent an answer that is not valid".
 */
export function httpClientFailure(error: unknown): never {
  throw new InternalError(`The HTTP client (undici) could not be started: ${describeLocalFault(error)}`, error);
}

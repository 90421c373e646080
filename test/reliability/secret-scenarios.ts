import type { Fault } from './faulty-server.ts';
import { type Backends, errorBody, MODELS, type ProviderName } from './harness.ts';

/**
 * The secrets suites' calls, one table for both surfaces (secrets.test.ts runs it in process and through `serve`):
 * answers, streams, 401s that echo the key, 429s retried and exhausted, 500s exhausted, in-stream errors echoing
 * the key, a provider without credentials, and a provider key that leaks through the next provider of a model. Run
 * with known, distinctive keys: some look like keys (`sk-…`, `AIza…`: caught by the key-shaped pattern too) and some
 * do not, so the redaction of the configured key is tested on its own.
 */
export const PROVIDER_KEYS = {
  openai: 'sk-proj-SECRETopenai0123456789abcdef',
  anthropic: 'anthropic-SECRET-key-7f3a9c2e51',
  google: 'AIzaSECRETgoogle0123456789abcdefghij',
  openrouter: 'openrouter-SECRET-key-b4d2e8a1',
} as const;

export interface SecretScenario {
  name: string;
  /** `partial`: the gateway (or server) whose providers lack Gemini. */
  gateway: 'main' | 'partial';
  request: Record<string, unknown>;
  /** Enqueues the scenario's faults at the fronts (and the fakes). */
  arm?: (backends: Backends) => void;
  /** What the caller gets: 200 an answer (a stream may end in an error event), else the error's status. */
  status: number;
}

const hello = [{ role: 'user' as const, content: 'Say hello' }];
const PROVIDERS: ProviderName[] = ['openai', 'anthropic', 'google'];

function statusFault(
  provider: ProviderName,
  status: number,
  message: string,
  extra: Parameters<typeof errorBody>[3] = {},
  headers: Record<string, string> = {},
): Fault {
  return { kind: 'status', status, body: errorBody(provider, status, message, extra), headers };
}

/** A 401 quoting the key, as each provider words it (Gemini: a 400 API_KEY_INVALID). */
function echo401(provider: ProviderName, key: string): Fault {
  if (provider === 'openai')
    return statusFault('openai', 401, `Incorrect API key provided: ${key}.`, {
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    });
  if (provider === 'anthropic')
    return statusFault('anthropic', 401, `invalid x-api-key ${key}`, { type: 'authentication_error' });
  return statusFault('google', 400, `API key not valid: ${key}`, {
    googleStatus: 'INVALID_ARGUMENT',
    reason: 'API_KEY_INVALID',
  });
}

function rateLimited(provider: ProviderName, key: string): Fault {
  return provider === 'google'
    ? statusFault('google', 429, `Quota exceeded for key ${key}`, {
        googleStatus: 'RESOURCE_EXHAUSTED',
        retryDelay: '0.01s',
      })
    : statusFault(
        provider,
        429,
        `Rate limit reached for key ${key}`,
        { type: 'rate_limit_error' },
        { 'retry-after-ms': '10' },
      );
}

/** An error event in the middle of a stream, quoting the key, in each provider's framing. */
function streamFailure(backends: Backends, provider: ProviderName, key: string): void {
  if (provider === 'anthropic') {
    backends.anthropic.enqueue({
      streamErrorAfter: 1,
      streamError: { type: 'api_error', message: `Stream failed for ${key}` },
    });
    return;
  }
  if (provider === 'openai') {
    const first = {
      id: 'chatcmpl-x',
      object: 'chat.completion.chunk',
      created: 1,
      model: MODELS.openai,
      choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }],
    };
    const failure = { error: { message: `Stream failed for ${key}`, type: 'server_error' } };
    backends.front.openai.enqueue({
      kind: 'malformed',
      contentType: 'text/event-stream',
      body: `data: ${JSON.stringify(first)}\n\ndata: ${JSON.stringify(failure)}\n\n`,
    });
    return;
  }
  const first = { candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] }, index: 0 }] };
  const failure = { error: { code: 500, message: `Stream failed for ${key}`, status: 'INTERNAL' } };
  backends.front.google.enqueue({
    kind: 'malformed',
    contentType: 'text/event-stream',
    body: `data: ${JSON.stringify(first)}\r\n\r\ndata: ${JSON.stringify(failure)}\r\n\r\n`,
  });
}

/** Metadata of every call: the workflow the record API and the page are read for. */
export const SECRETS_TRACE = 'secrets-trace';

export function secretScenarios(): SecretScenario[] {
  const perProvider = PROVIDERS.flatMap((provider): SecretScenario[] => {
    const key = PROVIDER_KEYS[provider];
    const metadata = { agent_id: `agent-${provider}`, trace_id: SECRETS_TRACE, workflow_name: 'secrets' };
    const ask = { model: MODELS[provider], messages: hello, metadata };
    const stream = { ...ask, stream: true };
    return [
      { name: `${provider}: answer`, gateway: 'main', request: ask, status: 200 },
      {
        name: `${provider}: stream`,
        gateway: 'main',
        request: { ...stream, stream_options: { include_usage: true } },
        status: 200,
      },
      {
        name: `${provider}: 401 echoing the key`,
        gateway: 'main',
        request: ask,
        arm: (backends) => backends.front[provider].enqueue(echo401(provider, key)),
        status: 401,
      },
      {
        name: `${provider}: 429 echoing the key, retried`,
        gateway: 'main',
        request: ask,
        arm: (backends) => backends.front[provider].enqueue(rateLimited(provider, key)),
        status: 200,
      },
      {
        name: `${provider}: 429 echoing the key, retries exhausted`,
        gateway: 'main',
        request: ask,
        arm: (backends) => {
          const limited = rateLimited(provider, key);
          backends.front[provider].enqueue(limited, limited, limited);
        },
        status: 429,
      },
      {
        name: `${provider}: 500 echoing the key, retries exhausted`,
        gateway: 'main',
        request: ask,
        arm: (backends) => {
          const failing = statusFault(provider, 500, `Internal error while serving ${key}`, {
            googleStatus: 'INTERNAL',
          });
          backends.front[provider].enqueue(failing, failing, failing);
        },
        status: 500,
      },
      {
        name: `${provider}: in-stream error echoing the key`,
        gateway: 'main',
        request: stream,
        arm: (backends) => streamFailure(backends, provider, key),
        status: 200,
      },
    ];
  });
  return [
    ...perProvider,
    {
      name: 'openai 503s, then openrouter’s 401 echoing its key',
      gateway: 'main',
      request: { model: 'gpt-4o-mini-2024-07-18', messages: hello },
      arm: (backends) => {
        const unavailable = statusFault('openai', 503, `overloaded (${PROVIDER_KEYS.openai})`);
        backends.front.openai.enqueue(
          unavailable,
          unavailable,
          unavailable,
          statusFault('openai', 401, `Bad key ${PROVIDER_KEYS.openrouter}`, { code: 'invalid_api_key' }),
        );
      },
      status: 401,
    },
    {
      name: 'google without credentials',
      gateway: 'partial',
      request: { model: MODELS.google, messages: hello },
      status: 503,
    },
    {
      name: 'google without credentials, anthropic fallback',
      gateway: 'partial',
      request: { model: MODELS.google, messages: hello, fallbacks: [MODELS.anthropic] },
      status: 200,
    },
  ];
}

/** The providers' settings with the scenarios' keys, pointed at the fronts. */
export function providersWithSecrets(backends: Backends) {
  const { front } = backends;
  return {
    openai: { apiKey: PROVIDER_KEYS.openai, baseURL: `${front.openai.url}/v1` },
    anthropic: { apiKey: PROVIDER_KEYS.anthropic, baseURL: front.anthropic.url },
    google: { apiKey: PROVIDER_KEYS.google, baseURL: front.google.url },
    openrouter: { apiKey: PROVIDER_KEYS.openrouter, baseURL: `${front.openai.url}/v1` },
  };
}

/** Every place `needle` occurs in `texts`, with some context. */
export function leaksIn(texts: string[], needles: string[]): string[] {
  const found: string[] = [];
  for (const text of texts)
    for (const needle of needles) {
      const at = text.indexOf(needle);
      if (at >= 0) found.push(`${needle} in: ${text.slice(Math.max(0, at - 120), at + needle.length + 40)}`);
    }
  return found;
}

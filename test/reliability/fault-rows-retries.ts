import { ProviderError, RateLimitError } from '../../src/index.ts';
import { each, FALLBACK, type FaultRow, greeting, statusFault, times } from './fault-rows.ts';
import type { Fault } from './faulty-server.ts';
import { MODELS, type ProviderName } from './harness.ts';

/**
 * Rows of the fault matrix (fault-rows.ts) about statuses, retries and their waits: rate limits with and without a
 * retry-after, 5xx that pass or persist, timeouts, resets and malformed answers, and what the next provider or the
 * fallback model makes of them.
 */

const retryAfter: Record<ProviderName, Fault> = {
  openai: statusFault(
    'openai',
    429,
    'Rate limit reached for requests',
    { type: 'requests', code: 'rate_limit_exceeded' },
    { 'retry-after': '1' },
  ),
  anthropic: statusFault(
    'anthropic',
    429,
    'Number of requests has exceeded your rate limit',
    { type: 'rate_limit_error' },
    { 'retry-after': '1' },
  ),
  google: statusFault('google', 429, 'Resource has been exhausted (e.g. check quota).', {
    googleStatus: 'RESOURCE_EXHAUSTED',
    retryDelay: '1s',
  }),
};
/** No retry-after this time (the gateway's own backoff applies), and no end to it. */
const limited: Record<ProviderName, Fault> = {
  openai: statusFault('openai', 429, 'Rate limit reached for requests', {
    type: 'requests',
    code: 'rate_limit_exceeded',
  }),
  anthropic: statusFault('anthropic', 429, 'Number of requests has exceeded your rate limit', {
    type: 'rate_limit_error',
  }),
  google: statusFault('google', 429, 'Quota exceeded', { googleStatus: 'RESOURCE_EXHAUSTED' }),
};
const internal: Record<ProviderName, Fault> = {
  openai: statusFault('openai', 500, 'The server had an error while processing your request.'),
  anthropic: statusFault('anthropic', 500, 'Internal server error', { type: 'api_error' }),
  google: statusFault('google', 500, 'An internal error has occurred.', { googleStatus: 'INTERNAL' }),
};
const unavailable: Record<ProviderName, Fault> = {
  openai: statusFault('openai', 503, 'The engine is currently overloaded, please try again later.'),
  anthropic: statusFault('anthropic', 503, 'Service unavailable', { type: 'api_error' }),
  google: statusFault('google', 503, 'The model is overloaded. Please try again later.', {
    googleStatus: 'UNAVAILABLE',
  }),
};
const overloaded = statusFault('anthropic', 529, 'Overloaded', { type: 'overloaded_error' });
/** A first stream event that is not JSON, in each provider's framing. */
const brokenFirstEvent: Record<ProviderName, string> = {
  openai: 'data: {"id": "chatcmpl-\n\n',
  anthropic: 'event: message_start\ndata: {"type": "mess\n\n',
  google: 'data: {"candidates": [\r\n\r\n',
};

/** The rows about statuses, retries and their waits. */
export function retryRows(provider: ProviderName): FaultRow[] {
  const model = MODELS[provider];
  const other = FALLBACK[provider];
  const rows: FaultRow[] = [
    {
      name: '429 with retry-after: waits as told (1 s), retries, answers',
      provider,
      faults: [retryAfter[provider]],
      expected: {
        kind: 'answer',
        content: greeting(provider),
        attempts: [`${provider}:429`, `${provider}:ok`],
        waits: [1_000],
        requests: 2,
      },
    },
    {
      name: '429 after every retry: RateLimitError with the chain',
      provider,
      faults: times(3, limited[provider]),
      expected: {
        kind: 'error',
        error: RateLimitError,
        status: 429,
        type: 'rate_limit_error',
        provider,
        retryable: true,
        attempts: each(provider, 3, '429'),
      },
    },
    {
      name: '500: retried, then answered',
      provider,
      faults: [internal[provider]],
      expected: { kind: 'answer', content: greeting(provider), attempts: [`${provider}:500`, `${provider}:ok`] },
    },
    {
      name: '500 after every retry: api_error naming the provider and the model',
      provider,
      faults: times(3, internal[provider]),
      expected: {
        kind: 'error',
        error: ProviderError,
        status: 500,
        type: 'api_error',
        // OpenAI's error body has neither code nor param here; so has the caller's.
        ...(provider === 'openai' ? { code: null, param: null } : {}),
        retryable: true,
        says: [`${provider} (${model}) answered 500`],
        attempts: each(provider, 3, '500'),
      },
    },
    ...[false, true].map(
      (stream): FaultRow => ({
        name: `503 on every retry${stream ? ', streamed (an ordinary error, before any chunk)' : ''}: the chain`,
        provider,
        faults: times(3, unavailable[provider]),
        stream,
        expected: {
          kind: 'error',
          error: ProviderError,
          status: 503,
          type: 'api_error',
          provider,
          model,
          retryable: true,
          attempts: each(provider, 3, '503'),
        },
      }),
    ),
    {
      name: '503 on every retry, with fallbacks: the next model answers',
      provider,
      faults: times(3, unavailable[provider]),
      request: { fallbacks: [MODELS[other]] },
      expected: {
        kind: 'answer',
        content: greeting(other),
        provider: other,
        attempts: [...each(provider, 3, '503'), `${other}:ok`],
      },
    },
    {
      name: 'request timeout: each hung request abandoned (its socket closed), retried, then 408',
      provider,
      faults: [{ kind: 'hang' }, { kind: 'hang' }],
      gateway: { timeoutMs: 250, maxRetries: 1 },
      expected: {
        kind: 'error',
        error: ProviderError,
        status: 408,
        type: 'timeout_error',
        code: 'timeout',
        retryable: true,
        provider,
        says: [model],
        attempts: each(provider, 2, '408'),
        requests: 2,
      },
    },
    {
      name: 'a hang, then an answer',
      provider,
      faults: [{ kind: 'hang' }],
      gateway: { timeoutMs: 250 },
      expected: { kind: 'answer', content: greeting(provider), outcomes: ['timeout', 'ok'] },
    },
    ...[false, true].map(
      (stream): FaultRow => ({
        name: `connection reset before any answer${stream ? ' (a stream)' : ''}: retried, then answered`,
        provider,
        faults: [{ kind: 'reset' }],
        stream,
        expected: { kind: 'answer', content: greeting(provider), outcomes: ['connection_error', 'ok'] },
      }),
    ),
    {
      name: 'connection reset on every try: 502 connection_error naming the model',
      provider,
      faults: times(3, { kind: 'reset' }),
      expected: {
        kind: 'error',
        error: ProviderError,
        status: 502,
        code: 'connection_error',
        retryable: true,
        says: [model],
        attempts: each(provider, 3, '502'),
      },
    },
    {
      name: 'malformed body (200, not JSON): retried, then answered',
      provider,
      faults: [{ kind: 'malformed' }],
      expected: { kind: 'answer', content: greeting(provider), attempts: [`${provider}:502`, `${provider}:ok`] },
    },
    // Regression (fixed; was a bug in the OpenAI and Anthropic adapters): a 200 whose body could not be parsed was
    // reported as code "connection_error", "Could not reach <provider>", though the provider had answered.
    {
      name: 'malformed body on every try: 502 invalid_response, not a connection error',
      provider,
      faults: times(3, { kind: 'malformed' }),
      expected: {
        kind: 'error',
        error: ProviderError,
        status: 502,
        type: 'api_error',
        code: 'invalid_response',
        provider,
        retryable: true,
        never: [/could not reach/i],
        attempts: each(provider, 3, '502'),
      },
    },
    {
      name: 'a stream whose first event is not JSON: retried like a failed request',
      provider,
      faults: [{ kind: 'malformed', contentType: 'text/event-stream', body: brokenFirstEvent[provider] }],
      stream: true,
      expected: { kind: 'answer', content: greeting(provider), attempts: [`${provider}:502`, `${provider}:ok`] },
    },
  ];
  if (provider === 'openai')
    rows.push({
      name: 'the same model is served by its next provider (OpenRouter) before any fallback model',
      provider,
      faults: times(3, unavailable.openai),
      request: { model: 'gpt-4o-mini-2024-07-18' },
      sent: { index: 3, model: 'openai/gpt-4o-mini-2024-07-18' },
      expected: {
        kind: 'answer',
        content: 'Hello from fake openai/gpt-4o-mini-2024-07-18',
        provider: 'openrouter',
        attempts: ['openai:503', 'openai:503', 'openai:503', 'openrouter:ok'],
      },
    });
  if (provider === 'anthropic')
    rows.push(
      {
        name: '529 overloaded twice: retried, then answered',
        provider,
        faults: times(2, overloaded),
        expected: {
          kind: 'answer',
          content: greeting(provider),
          attempts: ['anthropic:529', 'anthropic:529', 'anthropic:ok'],
          outcomes: ['overloaded_error', 'overloaded_error', 'ok'],
        },
      },
      {
        name: '529 after every retry: 529 overloaded_error, retryable',
        provider,
        faults: times(3, overloaded),
        expected: {
          kind: 'error',
          error: ProviderError,
          status: 529,
          code: 'overloaded_error',
          retryable: true,
          says: [model],
          attempts: each(provider, 3, '529'),
        },
      },
    );
  return rows;
}

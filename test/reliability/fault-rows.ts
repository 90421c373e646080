import { ProviderError, RateLimitError, type SwitchyardError } from '../../src/index.ts';
import type { Fault } from './faulty-server.ts';
import { errorBody, MODELS, type ProviderName } from './harness.ts';

/**
 * The fault matrix as one table: each row a fault a provider (or the network to it) can produce, the request that
 * meets it, and what the caller must get. fault-matrix.test.ts runs every row on both surfaces, the library
 * (`createCompletion`) and `switchyard serve` (HTTP, raw and through the `openai` SDK), each checking what its
 * caller can see: the error class and its fields in process, the status, the OpenAI error body and the SDK's class
 * over HTTP, and on both the attempt chain (over HTTP from the call's record).
 */

/** What the caller gets: an answer, an error before any answer, or a stream that broke after some text. */
export type Expected = Answered | Failed | Broken;

interface Common {
  /** The backoffs the gateway chose, in milliseconds (a provider's retry-after, as sent). */
  waits?: number[];
  /** Each attempt as `provider:status` (or `provider:outcome` when it has no status), in order. */
  attempts?: string[];
  /** Each attempt's `outcome`, where the row is about it. */
  outcomes?: string[];
  /** Requests the provider's front saw for one call. */
  requests?: number;
}

export interface Answered extends Common {
  kind: 'answer';
  content: string;
  /** The provider that answered (default: the row's). */
  provider?: string;
  /** `message.parsed` of a structured answer. */
  parsed?: unknown;
  /** A warning code the answer must carry. */
  warning?: { code: string; param: string };
}

export interface Failed extends Common {
  kind: 'error';
  /** The library's class (over HTTP the status picks the SDK's). */
  error: new (
    ...args: never[]
  ) => SwitchyardError;
  status: number;
  type?: string;
  code?: string | null;
  /** The error's `param`, or a pattern it must match. */
  param?: string | RegExp | null;
  retryable?: boolean;
  /** The provider the error names (in process). */
  provider?: ProviderName;
  model?: string;
  /** Text the message must contain. */
  says?: string[];
  /** Patterns and texts the message, the error's JSON and its attempts must not contain. */
  never?: Array<string | RegExp>;
  /** Ids the caller is pointed to (`suggestions` in process, the message over HTTP). */
  suggests?: string;
  /** Requests the fallback's front saw (none, for errors that end the call). */
  fallbackRequests?: number;
}

export interface Broken extends Common {
  kind: 'broken stream';
  /** The text that reached the caller before the break. */
  partial: string;
  status?: number;
  type?: string;
  code?: string;
  retryable?: boolean;
  /** Text the error's message must contain. */
  says?: string[];
}

export interface FaultRow {
  /** The test's name: the fault and the outcome. */
  name: string;
  provider: ProviderName;
  /** Enqueued at the provider's front before each call. */
  faults: Fault[];
  /** Over `{ model: MODELS[provider], messages: hello }`. */
  request?: Record<string, unknown>;
  stream?: boolean;
  /** Gateway settings of the row's own (a gateway or server of its own is made for it). */
  gateway?: { timeoutMs?: number; maxRetries?: number; withoutCredentials?: boolean };
  /** Answers the fake provider gives for the calls that get through (in its own reply shape). */
  replies?: (provider: ProviderName) => unknown;
  /** The model of the request the front saw at `index` (from the call's first). */
  sent?: { index: number; model: string };
  expected: Expected;
}

export const hello = [{ role: 'user' as const, content: 'Say hello' }];
/** The fake servers greet with `Hello from fake <model>`. */
export const greeting = (provider: ProviderName) => `Hello from fake ${MODELS[provider]}`;
/** Another provider's model, for `fallbacks`. */
export const FALLBACK: Record<ProviderName, ProviderName> = {
  openai: 'anthropic',
  anthropic: 'google',
  google: 'openai',
};
/** Server-sent events that carry "Hello from" in each provider's stream (the fakes send text in 5-character pieces). */
export const EVENTS_UNTIL_HELLO_FROM: Record<ProviderName, number> = { openai: 3, anthropic: 5, google: 2 };

export function statusFault(
  provider: ProviderName,
  status: number,
  message: string,
  extra: Parameters<typeof errorBody>[3] = {},
  headers: Record<string, string> = {},
): Fault {
  return { kind: 'status', status, body: errorBody(provider, status, message, extra), headers };
}

export const times = (count: number, fault: Fault): Fault[] => Array.from({ length: count }, () => fault);
export const each = (provider: ProviderName, count: number, attempt: string) =>
  Array.from({ length: count }, () => `${provider}:${attempt}`);

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

/** The rows about streams that break after some text reached the caller. */
export function streamRows(provider: ProviderName): FaultRow[] {
  return [
    {
      name: 'stream cut mid-way (the connection dropped after some text): partial text, then 502, not retried',
      provider,
      faults: [{ kind: 'truncate', events: EVENTS_UNTIL_HELLO_FROM[provider] }],
      stream: true,
      expected: {
        kind: 'broken stream',
        partial: 'Hello from',
        status: 502,
        type: 'api_error',
        retryable: false,
        says: ['broke off'],
        attempts: [`${provider}:ok`],
        requests: 1,
      },
    },
    // Regressions (fixed; were bugs in the OpenAI adapter's #convertChunks and Gemini's StreamConverter.finish): an
    // OpenAI-family stream ending without [DONE] and a Gemini stream without a finishReason passed as complete
    // answers (Gemini's with a synthesized finish_reason "stop"), their records "ok".
    {
      name: 'stream ended cleanly before the answer was complete (no finish, no [DONE]): stream_truncated',
      provider,
      faults: [{ kind: 'end', events: EVENTS_UNTIL_HELLO_FROM[provider] }],
      stream: true,
      expected: { kind: 'broken stream', partial: 'Hello from', code: 'stream_truncated' },
    },
  ];
}

import type { SwitchyardError } from '../../src/index.ts';
import type { Fault } from './faulty-server.ts';
import { errorBody, MODELS, type ProviderName } from './harness.ts';

/**
 * The fault matrix as one table: each row a fault a provider (or the network to it) can produce, the request that
 * meets it, and what the caller must get. fault-matrix.test.ts runs every row on both surfaces, the library
 * (`createCompletion`) and `switchyard serve` (HTTP, raw and through the `openai` SDK), each checking what its
 * caller can see: the error class and its fields in process, the status, the OpenAI error body and the SDK's class
 * over HTTP, and on both the attempt chain (over HTTP from the call's record). The rows' shape and the streams
 * that break are here; the retries in fault-rows-retries.ts, the refusals in fault-rows-refusals.ts.
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

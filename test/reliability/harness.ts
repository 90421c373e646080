import { afterEach, beforeEach, expect } from 'vitest';
import {
  Catalog,
  type CatalogData,
  type CompletionChunk,
  createGateway,
  type Gateway,
  type GatewayOptions,
  type ModelEntry,
} from '../../src/index.ts';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { type FakeGeminiServer, startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';
import { type FaultyServer, startFaultyServer } from './faulty-server.ts';

/**
 * Shared set-up of the reliability tests: one small catalog with a model per provider family, the three fake
 * provider servers each behind a fault-injecting front (faulty-server.ts), distinctive keys, and guards for
 * unhandled rejections and calls that never settle.
 */

const supports: ModelEntry['supports'] = {
  reasoning: false,
  structured_outputs: true,
  json_mode: true,
  tools: true,
  parallel_tool_calls: true,
  images: true,
  temperature: true,
  top_p: true,
  stop: true,
  reasoning_can_disable: false,
};

export const MODELS = {
  openai: 'gpt-4o-2024-11-20',
  // Haiku rather than Sonnet 4.5: the Anthropic SDK console.warns on every call to a deprecated model.
  anthropic: 'claude-haiku-4-5-20251001',
  google: 'gemini-2.5-flash',
} as const;

export type ProviderName = keyof typeof MODELS;
export const PROVIDERS: ProviderName[] = ['openai', 'anthropic', 'google'];

const catalogData: CatalogData = {
  updated: '2026-11-22',
  models: [
    {
      id: MODELS.openai,
      name: 'GPT-4o',
      maker: 'openai',
      release_date: '2024-11-20',
      context_window: 128000,
      max_output_tokens: 16384,
      supports,
      providers: [
        { provider: 'openai', model: MODELS.openai, pricing: { input: 2.5, output: 10, cached_input: 1.25 } },
      ],
    },
    {
      id: MODELS.anthropic,
      name: 'Claude Haiku 4.5',
      maker: 'anthropic',
      release_date: '2025-10-01',
      context_window: 200000,
      max_output_tokens: 64000,
      supports: { ...supports, json_mode: false },
      providers: [
        { provider: 'anthropic', model: MODELS.anthropic, pricing: { input: 1, output: 5, cached_input: 0.1 } },
      ],
    },
    {
      id: MODELS.google,
      name: 'Gemini 2.5 Flash',
      maker: 'google',
      release_date: '2025-06-17',
      context_window: 1048576,
      max_output_tokens: 65536,
      supports,
      providers: [
        { provider: 'google', model: MODELS.google, pricing: { input: 0.3, output: 2.5, cached_input: 0.03 } },
      ],
    },
    {
      // Served by OpenAI first, then OpenRouter: for "the next provider of the same model".
      id: 'gpt-4o-mini-2024-07-18',
      name: 'GPT-4o mini',
      maker: 'openai',
      release_date: '2024-07-18',
      context_window: 128000,
      max_output_tokens: 16384,
      supports,
      providers: [
        {
          provider: 'openai',
          model: 'gpt-4o-mini-2024-07-18',
          pricing: { input: 0.15, output: 0.6, cached_input: 0.075 },
        },
        {
          provider: 'openrouter',
          model: 'openai/gpt-4o-mini-2024-07-18',
          pricing: { input: 0.15, output: 0.6, cached_input: 0.075 },
        },
      ],
    },
  ],
  aliases: { 'gpt-4o-latest': MODELS.openai, 'claude-haiku-latest': MODELS.anthropic },
  synonyms: {},
};
export const catalog = new Catalog(catalogData);

/** Distinctive keys: if any of these shows up in an error, a record, a span or a log, it leaked. */
export const KEYS = {
  openai: 'sk-proj-RELIABILITYopenaiKEY0123456789abcdef',
  anthropic: 'sk-ant-api03-RELIABILITYanthropicKEY0123456789',
  google: 'AIzaSyRELIABILITYgoogleKEY0123456789abc',
  openrouter: 'sk-or-v1-RELIABILITYopenrouterKEY0123456789',
} as const;

export interface Backends {
  openai: FakeOpenAIServer;
  anthropic: FakeAnthropicServer;
  google: FakeGeminiServer;
  /** The fronts the gateway talks to, one per provider. */
  front: Record<ProviderName, FaultyServer>;
  close(): Promise<void>;
}

export async function startBackends(): Promise<Backends> {
  const [openai, anthropic, google] = await Promise.all([
    startFakeOpenAIServer(),
    startFakeAnthropicServer(),
    startFakeGeminiServer(),
  ]);
  const [openaiFront, anthropicFront, googleFront] = await Promise.all([
    startFaultyServer(openai.url),
    startFaultyServer(anthropic.url),
    startFaultyServer(google.url),
  ]);
  const front = { openai: openaiFront, anthropic: anthropicFront, google: googleFront };
  return {
    openai,
    anthropic,
    google,
    front,
    close: async () => {
      await Promise.all([
        ...Object.values(front).map((server) => server.close()),
        openai.close(),
        anthropic.close(),
        google.close(),
      ]);
    },
  };
}

/** Where each provider's SDK is pointed: its fault-injecting front. */
export function providerSettings(
  backends: Backends,
  extra: Partial<Record<ProviderName | 'openrouter', Record<string, unknown>>> = {},
): NonNullable<GatewayOptions['providers']> {
  return {
    openai: { apiKey: KEYS.openai, baseURL: `${backends.front.openai.url}/v1`, ...extra.openai },
    anthropic: { apiKey: KEYS.anthropic, baseURL: backends.front.anthropic.url, ...extra.anthropic },
    google: { apiKey: KEYS.google, baseURL: backends.front.google.url, ...extra.google },
    openrouter: { apiKey: KEYS.openrouter, baseURL: `${backends.front.openai.url}/v1`, ...extra.openrouter },
  };
}

export function gatewayFor(backends: Backends, options: GatewayOptions = {}): Gateway {
  return createGateway({
    catalog,
    env: {},
    providers: providerSettings(backends),
    // Short backoff, but long enough a cap that a provider's retry-after of a second is honoured as sent.
    retry: { initialDelayMs: 5, maxDelayMs: 2_000 },
    ...options,
  });
}

/** A provider error body in each provider's own wire shape. */
export function errorBody(
  provider: ProviderName,
  status: number,
  message: string,
  extra: {
    code?: string;
    type?: string;
    param?: string;
    googleStatus?: string;
    reason?: string;
    retryDelay?: string;
    field?: string;
  } = {},
): unknown {
  if (provider === 'openai')
    return {
      error: { message, type: extra.type ?? 'server_error', param: extra.param ?? null, code: extra.code ?? null },
    };
  if (provider === 'anthropic')
    return { type: 'error', error: { type: extra.type ?? 'api_error', message }, request_id: 'req_faulty' };
  const details: unknown[] = [];
  if (extra.reason)
    details.push({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: extra.reason,
      domain: 'googleapis.com',
    });
  if (extra.retryDelay)
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: extra.retryDelay });
  if (extra.field)
    details.push({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: extra.field, description: message }],
    });
  return {
    error: { code: status, message, status: extra.googleStatus ?? 'INTERNAL', ...(details.length ? { details } : {}) },
  };
}

/** The work, or a rejection once `ms` passed: a hang guard, not a speed assertion. */
export async function bounded<T>(work: Promise<T>, ms = 10_000, what = 'the call'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms (hung)`)), ms);
  });
  try {
    return await Promise.race([work, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(work: Promise<unknown>, ms?: number): Promise<any> {
  try {
    await bounded(work, ms);
  } catch (error) {
    if (error instanceof Error && /did not settle within/.test(error.message)) throw error;
    return error;
  }
  throw new Error('expected the call to fail, and it succeeded');
}

export function text(chunks: CompletionChunk[]): string {
  return chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
}

/** Reads a stream to its end, or to its error: `{ chunks, error }`, bounded. */
export async function drain(
  stream: AsyncIterable<CompletionChunk>,
  ms?: number,
): Promise<{ chunks: CompletionChunk[]; error: any }> {
  const chunks: CompletionChunk[] = [];
  let error: unknown;
  await bounded(
    (async () => {
      try {
        for await (const chunk of stream) chunks.push(chunk);
      } catch (caught) {
        error = caught;
      }
    })(),
    ms,
    'the stream',
  );
  return { chunks, error };
}

/**
 * Collects unhandled rejections while each test runs and fails the test that had any. Node reports a rejection
 * nobody handled once the microtasks of its turn have run, so the check lets the event loop turn twice first.
 */
export function guardUnhandledRejections(): { seen: unknown[] } {
  const state = { seen: [] as unknown[] };
  const listener = (reason: unknown) => void state.seen.push(reason);
  beforeEach(() => {
    state.seen.length = 0;
    process.on('unhandledRejection', listener);
  });
  afterEach(async () => {
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', listener);
    expect(state.seen.map(String), 'unhandled rejections during the test').toEqual([]);
  });
  return state;
}

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONTINUE_PROMPT } from '../../src/completion/stream-failover.ts';
import {
  type CompletionChunk,
  type GatewayOptions,
  StreamInterruptedError,
  StructuredOutputError,
} from '../../src/index.ts';
import type { FakeAnthropicReply } from '../fake-servers/anthropic-server.ts';
import type { GeminiReply } from '../fake-servers/gemini-server.ts';
import type { FakeReply } from '../fake-servers/openai-server.ts';
import {
  type Backends,
  bounded,
  drain,
  gatewayFor,
  MODELS,
  type ProviderName,
  startBackends,
  text,
} from '../reliability/harness.ts';

/**
 * Mid-stream failover through the fakes: a stream cut after content goes on at the next candidate, which is asked
 * to continue from the partial answer (its request is checked for it) and answers the rest of the intended text;
 * the caller must see the intended answer once, under one id, with the usage of both attempts.
 */
let backends: Backends;
beforeAll(async () => {
  backends = await startBackends();
});
const matrix: string[] = [];
afterAll(async () => {
  console.log(`stream-cut matrix (provider × where it cut → what the caller saw):\n${matrix.join('\n')}`);
  await backends.close();
});
afterEach(() => {
  for (const provider of ['openai', 'anthropic', 'google'] as const) {
    backends[provider].respondWith = undefined;
    backends.front[provider].reset();
  }
  backends.openai.requests.length = 0;
  backends.anthropic.requests.length = 0;
  backends.google.reset();
});

const INTENDED = 'The quick brown fox jumps over the lazy dog, and then it rests.';
const hello = [{ role: 'user' as const, content: 'Tell me about the fox' }];
/** The next candidate of each provider: another provider's model, so each is also a continuation once. */
const NEXT: Record<ProviderName, ProviderName> = { openai: 'anthropic', anthropic: 'google', google: 'openai' };

/**
 * A fault of the fake itself (`reply`), or of the front before it after N events: the connection cut (`truncate`),
 * the stream ended without its finish (`end`), or no event until the gateway's idle limit cuts it (`stall`).
 */
type Cut = { reply?: Record<string, unknown>; front?: { kind: 'truncate' | 'end' | 'stall'; events: number } };
/** The events up to the third five-character text piece ("The quick brown"): after a role chunk (OpenAI), after
 * message_start, ping and content_block_start (Anthropic), one a piece (Gemini). */
const EVENTS: Record<ProviderName, number> = { openai: 4, anthropic: 6, google: 3 };
const FRONT_CUTS = { truncate: 'connection cut', end: 'ended without its finish', stall: 'stalled (idle timeout)' };
const CUTS = (['openai', 'anthropic', 'google'] as const).flatMap((provider) => [
  [provider, 'error event after 3 text pieces', { reply: { streamErrorAfter: 3 } }] as const,
  ...(['truncate', 'end', 'stall'] as const).map(
    (kind) =>
      [provider, `${FRONT_CUTS[kind]} after 3 text pieces`, { front: { kind, events: EVENTS[provider] } }] as const,
  ),
]);

/** The partial answer a continuation request carries, as each wire format holds an assistant turn. */
function partialIn(provider: ProviderName, body: Record<string, any>): { partial: string; asked: boolean } {
  if (provider === 'google') {
    const contents: Array<{ role: string; parts: Array<{ text?: string }> }> = body.contents;
    const model = contents.findLast((content) => content.role === 'model');
    const last =
      contents
        .at(-1)
        ?.parts.map((part) => part.text ?? '')
        .join('') ?? '';
    return { partial: model?.parts.map((part) => part.text ?? '').join('') ?? '', asked: last === CONTINUE_PROMPT };
  }
  const messages: Array<{ role: string; content: unknown }> = body.messages;
  const assistant = messages.findLast((message) => message.role === 'assistant');
  const content = assistant?.content;
  const partial = Array.isArray(content) ? content.map((block) => block.text ?? '').join('') : String(content ?? '');
  const last = messages.at(-1)?.content;
  const lastText = Array.isArray(last) ? last.map((block) => block.text ?? '').join('') : last;
  return { partial, asked: lastText === CONTINUE_PROMPT };
}

/** The continuation fake answers the rest of INTENDED after the partial answer it was sent (plus `repeat`). */
function continueWith(provider: ProviderName, seen: Array<{ partial: string; asked: boolean }>, repeat = 0): void {
  const rest = (body: Record<string, any>) => {
    const found = partialIn(provider, body);
    seen.push(found);
    return INTENDED.slice(Math.max(0, found.partial.length - repeat));
  };
  if (provider === 'openai') backends.openai.respondWith = (body): FakeReply => ({ content: rest(body) });
  if (provider === 'anthropic')
    backends.anthropic.respondWith = (body): FakeAnthropicReply => ({ content: [{ type: 'text', text: rest(body) }] });
  if (provider === 'google') backends.google.respondWith = (body): GeminiReply => ({ text: rest(body) });
}

function enqueue(provider: ProviderName, reply: Record<string, unknown>): void {
  if (provider === 'openai') backends.openai.enqueue({ content: INTENDED, ...reply });
  if (provider === 'anthropic') backends.anthropic.enqueue({ content: [{ type: 'text', text: INTENDED }], ...reply });
  if (provider === 'google') backends.google.enqueue({ text: INTENDED, ...reply });
}

async function streamOf(provider: ProviderName, extra: Record<string, unknown> = {}, options: GatewayOptions = {}) {
  const gateway = gatewayFor(backends, options);
  const request = {
    model: MODELS[provider],
    messages: hello,
    stream: true as const,
    stream_options: { include_usage: true },
    fallbacks: [MODELS[NEXT[provider]]],
    ...extra,
  };
  const stream = await bounded(gateway.createCompletion(request));
  return { stream, ...(await drain(stream)) };
}

const usageOf = (chunks: CompletionChunk[]) => chunks.findLast((chunk) => chunk.usage)?.usage;

describe('a stream cut after content goes on at the next candidate', () => {
  it.each(CUTS)('%s: %s', async (provider, name, cut: Cut) => {
    const next = NEXT[provider];
    const seen: Array<{ partial: string; asked: boolean }> = [];
    enqueue(provider, cut.reply ?? {});
    if (cut.front) backends.front[provider].enqueue(cut.front);
    continueWith(next, seen);
    const { stream, chunks, error } = await streamOf(
      provider,
      {},
      cut.front?.kind === 'stall' ? { streamIdleTimeoutMs: 300 } : {},
    );
    const saw = error ? `error ${error.name}` : JSON.stringify(text(chunks));
    matrix.push(`${provider} | ${name} | continued on ${next} | ${saw}`);

    expect(error).toBeUndefined();
    expect(text(chunks)).toBe(INTENDED);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.role).length).toBe(1);
    // The continuation request carried what the caller had; a prefill where the provider continues one.
    expect(seen).toHaveLength(1);
    expect(seen[0]!.partial.trimEnd()).toBe('The quick brown');
    expect(seen[0]!.asked).toBe(next !== 'anthropic');
    // Usage: the continuation's own (12 in, 7 out from the fakes) plus the broken attempt's estimate.
    const usage = usageOf(chunks);
    expect(usage?.prompt_tokens).toBeGreaterThan(12);
    expect(usage?.completion_tokens).toBeGreaterThan(7);
    // Issue 36, item 14: the estimate has no total, and the sum kept the continuation's alone.
    expect(usage?.total_tokens).toBe(usage!.prompt_tokens + usage!.completion_tokens);
    expect(stream.switchyard.attempts.map((attempt) => [attempt.provider, attempt.outcome])).toEqual([
      [provider, 'stream_interrupted'],
      [next, 'ok'],
    ]);
  });

  it('cuts a continuation that repeats the tail of the partial answer', async () => {
    const seen: Array<{ partial: string; asked: boolean }> = [];
    enqueue('google', {});
    backends.front.google.enqueue({ kind: 'truncate', events: 3 });
    continueWith('openai', seen, 14);
    const { chunks, error } = await streamOf('google');
    const where = 'connection cut after 3 chunks, the continuation repeats 14 chars';
    matrix.push(`google | ${where} | continued on openai | ${JSON.stringify(text(chunks))}`);
    expect(error).toBeUndefined();
    expect(text(chunks)).toBe(INTENDED);
  });
});

describe('where the stream does not go on', () => {
  const cut = () => {
    backends.openai.enqueue({ content: INTENDED, streamErrorAfter: 3 });
    continueWith('anthropic', []);
  };

  it.each([
    ['the call opts out (stream_failover: false)', { stream_failover: false }, {}],
    ['the gateway opts out (streamFailover: false)', {}, { streamFailover: false }],
    ['there is no next candidate', { fallbacks: [] }, {}],
  ])('%s: StreamInterruptedError, as before', async (_name, extra, options) => {
    cut();
    const gateway = gatewayFor(backends, options);
    const request = { model: MODELS.openai, messages: hello, stream: true as const, fallbacks: [MODELS.anthropic] };
    const { chunks, error } = await drain(await bounded(gateway.createCompletion({ ...request, ...extra })));
    matrix.push(
      `openai | error event after 3 text chunks, ${_name} | – | ${error?.name}, ${JSON.stringify(text(chunks))}`,
    );
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(text(chunks)).toBe('The quick brown');
    expect(backends.anthropic.requests).toHaveLength(0);
  });
});

describe('tool calls', () => {
  const ARGS = '{"city":"Paris","unit":"celsius"}';
  const tools = [
    {
      type: 'function' as const,
      function: {
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } } },
      },
    },
  ];
  const toolDeltas = (chunks: CompletionChunk[]) => chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);

  /** The next candidate answers the same tool call, asked again from the start (nothing of it was relayed). */
  function answerToolCall(provider: 'openai' | 'anthropic' | 'google', seen: Array<{ partial: string }>): void {
    const record = (body: Record<string, any>) => seen.push(partialIn(provider, body));
    backends.openai.respondWith = (body) => {
      record(body);
      return { tool_calls: [{ id: 'call_2', name: 'get_weather', arguments: ARGS }] };
    };
    backends.google.respondWith = (body) => {
      record(body);
      return { parts: [{ functionCall: { name: 'get_weather', args: JSON.parse(ARGS) } }] };
    };
  }

  it.each([
    ['openai', 'connection cut inside the arguments', 'google'],
    ['anthropic', 'error event inside the arguments', 'openai'],
  ] as const)('%s: %s → each call reaches the caller once, whole', async (provider, where, next) => {
    const seen: Array<{ partial: string }> = [];
    if (provider === 'openai') {
      backends.openai.enqueue({ tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: ARGS }] });
      // Role chunk, the call's header, then two five-character pieces of its arguments.
      backends.front.openai.enqueue({ kind: 'truncate', events: 4 });
    } else {
      const input = JSON.parse(ARGS);
      backends.anthropic.enqueue({
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input }],
        streamErrorAfter: 2,
      });
    }
    answerToolCall(next, seen);
    const { stream, chunks, error } = await streamOf(provider, { tools, fallbacks: [MODELS[next]] });
    const deltas = toolDeltas(chunks);
    const args = deltas.map((delta) => delta.function?.arguments ?? '').join('');
    matrix.push(
      `${provider} | ${where} | continued on ${next} | ${error ? error.name : `one tool call, arguments ${args}`}`,
    );
    expect(error).toBeUndefined();
    expect(deltas.filter((delta) => delta.id)).toHaveLength(1);
    expect(args).toBe(ARGS);
    expect(seen).toEqual([{ partial: '', asked: false }]);
    expect(stream.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['stream_interrupted', 'ok']);
  });

  it('a break after the finish (only its usage to come) ends the stream: the calls are not sent twice', async () => {
    backends.openai.enqueue({ tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: ARGS }] });
    // Role chunk, the call's header, its arguments in seven pieces, the finish: cut before the usage chunk.
    backends.front.openai.enqueue({ kind: 'truncate', events: 10 });
    const { stream, chunks, error } = await streamOf('openai', { tools });
    expect(error).toBeUndefined();
    expect(toolDeltas(chunks).filter((delta) => delta.id)).toHaveLength(1);
    expect(chunks.filter((chunk) => chunk.choices[0]?.finish_reason)).toHaveLength(1);
    expect(backends.anthropic.requests).toHaveLength(0);
    expect(stream.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['ok']);
  });

  it('a stream of several choices does not fail over (a continuation would restart them mixed)', async () => {
    backends.openai.enqueue({ content: INTENDED, streamErrorAfter: 3 });
    const { error } = await streamOf('openai', { n: 2 });
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(backends.anthropic.requests).toHaveLength(0);
  });

  it('holds tool calls back while a failover could happen: their arguments arrive whole', async () => {
    backends.openai.enqueue({ tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: ARGS }] });
    const { chunks, error } = await streamOf('openai', { tools });
    expect(error).toBeUndefined();
    expect(toolDeltas(chunks)).toEqual([
      { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: ARGS } },
    ]);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
  });
});

describe('structured output', () => {
  const ANSWER = '{"animal":"fox","action":"jumps over the lazy dog"}';
  const response_format = {
    type: 'json_schema' as const,
    json_schema: {
      name: 'fox',
      strict: true,
      schema: {
        type: 'object',
        properties: { animal: { type: 'string' }, action: { type: 'string' } },
        required: ['animal', 'action'],
        additionalProperties: false,
      },
    },
  };

  it.each([
    ['the spliced whole matches the schema: the answer stands', ANSWER],
    ['the spliced whole does not: StructuredOutputError at the end', '{"animal":"fox","action":7}'],
  ])('%s', async (_name, whole) => {
    backends.openai.enqueue({ content: whole, streamErrorAfter: 3 });
    // Neither part alone is JSON: only the whole is checked.
    backends.anthropic.respondWith = (body) => ({
      content: [{ type: 'text', text: whole.slice(partialIn('anthropic', body).partial.length) }],
    });
    const { chunks, error } = await streamOf('openai', { response_format });
    expect(text(chunks)).toBe(whole);
    if (whole === ANSWER) expect(error).toBeUndefined();
    else expect(error).toBeInstanceOf(StructuredOutputError);
  });
});

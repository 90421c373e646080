import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallbackSink } from '../../src/entries/stores.ts';
import { type CallRecord, CompletionStream, createGateway, type Gateway, SwitchyardError } from '../../src/index.ts';
import { type RawAnswerServer, startRawAnswerServer } from '../fake-servers/raw-answer-server.ts';
import { chatCompletionChunkContract, chatCompletionContract } from '../helpers/openai-contract.ts';
import { bounded, catalog, guardUnhandledRejections, KEYS, MODELS, type ProviderName } from './harness.ts';

/**
 * Malformed provider answers, fuzzed. Valid answers of each wire format (OpenAI chat completions, Anthropic
 * Messages, Gemini generateContent; JSON and SSE) are mutated at random places: fields removed, nulled, retyped,
 * arrays and objects emptied, stream events dropped or repeated. Each goes through the real SDK from a fake server.
 * Whatever arrives, the process survives, every call ends in an answer that meets the OpenAI contract or a typed
 * `SwitchyardError`, and every call leaves a record. Fixed seed; FUZZ_SEED / FUZZ_RUNS explore further.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 2_000);

guardUnhandledRejections();

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Step = string | number;
type Operation = 'remove' | 'null' | 'retype' | 'empty';
/** One mutation: which node (by index among all nodes) and what to do to it. */
type Mutation = [node: number, operation: Operation];

const usage = {
  prompt_tokens: 5,
  completion_tokens: 2,
  total_tokens: 7,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
};
const toolCall = { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"city":"Paris"}' } };
const openaiEnvelope = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_760_000_000,
  model: 'gpt-4o',
  system_fingerprint: 'fp_1',
};
const openaiChunk = (choices: Json[], extra: Record<string, Json> = {}): Json => ({
  ...openaiEnvelope,
  object: 'chat.completion.chunk',
  choices,
  ...extra,
});
const openaiDelta = (delta: Json, finish: string | null = null): Json => ({
  index: 0,
  delta,
  logprobs: null,
  finish_reason: finish,
});

const anthropicMessage = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-haiku-4-5',
  stop_sequence: null,
};
const anthropicUsage = {
  input_tokens: 5,
  output_tokens: 2,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};
const anthropicStart = {
  type: 'message_start',
  message: { ...anthropicMessage, content: [], stop_reason: null, usage: { input_tokens: 5, output_tokens: 1 } },
};

const geminiUsage = { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 };
const geminiChunk = (parts: Json[], finishReason?: string, withUsage = false): Json => ({
  candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
  ...(withUsage ? { usageMetadata: geminiUsage } : {}),
  modelVersion: 'gemini-2.5-flash',
  responseId: 'resp-1',
});

/** Valid answers per provider: whole JSON bodies, and streams as lists of event payloads. */
const BASES: Record<ProviderName, { json: Json[]; streams: Json[][] }> = {
  openai: {
    json: [
      {
        ...openaiEnvelope,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'Hello there', refusal: null },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage,
      },
      {
        ...openaiEnvelope,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: null, refusal: null, tool_calls: [toolCall] },
            logprobs: null,
            finish_reason: 'tool_calls',
          },
        ],
        usage,
      },
    ],
    streams: [
      [
        openaiChunk([openaiDelta({ role: 'assistant', content: '' })]),
        openaiChunk([openaiDelta({ content: 'Hel' })]),
        openaiChunk([openaiDelta({ content: 'lo' })]),
        openaiChunk([openaiDelta({}, 'stop')]),
        openaiChunk([], { usage }),
      ],
      [
        openaiChunk([
          openaiDelta({
            role: 'assistant',
            content: null,
            tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } }],
          }),
        ]),
        openaiChunk([openaiDelta({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] })]),
        openaiChunk([openaiDelta({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] })]),
        openaiChunk([openaiDelta({}, 'tool_calls')]),
        openaiChunk([], { usage }),
      ],
    ],
  },
  anthropic: {
    json: [
      {
        ...anthropicMessage,
        content: [{ type: 'text', text: 'Hello there' }],
        stop_reason: 'end_turn',
        usage: anthropicUsage,
      },
      {
        ...anthropicMessage,
        content: [
          { type: 'thinking', thinking: 'Paris first.', signature: 'c2ln' },
          { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { city: 'Paris' } },
        ],
        stop_reason: 'tool_use',
        usage: anthropicUsage,
      },
    ],
    streams: [
      [
        anthropicStart,
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'ping' },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } },
        { type: 'message_stop' },
      ],
      [
        anthropicStart,
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Paris first.' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'c2ln' } },
        { type: 'content_block_stop', index: 0 },
        {
          type: 'content_block_start',
          index: 1,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} },
        },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } },
        { type: 'content_block_stop', index: 1 },
        {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: 12 },
        },
        { type: 'message_stop' },
      ],
    ],
  },
  google: {
    json: [
      geminiChunk([{ text: 'Hello there' }], 'STOP', true),
      geminiChunk(
        [
          { text: 'Paris first.', thought: true },
          { functionCall: { name: 'lookup', args: { city: 'Paris' } }, thoughtSignature: 'c2ln' },
        ],
        'STOP',
        true,
      ),
    ],
    streams: [
      [geminiChunk([{ text: 'Hel' }]), geminiChunk([{ text: 'lo' }], 'STOP', true)],
      [
        geminiChunk([{ text: 'Paris first.', thought: true }]),
        geminiChunk([{ functionCall: { name: 'lookup', args: { city: 'Paris' } } }], 'STOP', true),
      ],
    ],
  },
};

/** Every node of a JSON value, by its path (the root is `[]`). */
function nodePaths(value: Json, prefix: Step[] = [], into: Step[][] = []): Step[][] {
  into.push(prefix);
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      nodePaths(item, [...prefix, index], into);
    });
  } else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) nodePaths(item, [...prefix, key], into);
  return into;
}

function retyped(value: Json): Json {
  if (Array.isArray(value)) return {};
  if (value === null) return 'null';
  if (typeof value === 'object') return [];
  if (typeof value === 'string') return 7;
  if (typeof value === 'number') return String(value);
  return 1;
}

function emptied(value: Json): Json {
  if (Array.isArray(value)) return [];
  if (value !== null && typeof value === 'object') return {};
  if (typeof value === 'string') return '';
  return 0;
}

/** A copy of `value` with one mutation applied at `path`. */
function mutate(value: Json, path: Step[], operation: Operation): Json | undefined {
  if (path.length === 0)
    return operation === 'remove'
      ? undefined
      : operation === 'null'
        ? null
        : operation === 'retype'
          ? retyped(value)
          : emptied(value);
  const copy = structuredClone(value) as Record<string | number, Json> | Json[];
  let parent = copy as Record<string | number, Json>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, Json>;
  const last = path.at(-1)!;
  if (operation === 'remove') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else
    parent[last] =
      operation === 'null' ? null : operation === 'retype' ? retyped(parent[last]!) : emptied(parent[last]!);
  return copy;
}

function applyMutations(value: Json, mutations: Mutation[]): Json | undefined {
  let current: Json | undefined = value;
  for (const [node, operation] of mutations) {
    if (current === undefined) break;
    const paths = nodePaths(current);
    current = mutate(current, paths[node % paths.length]!, operation);
  }
  return current;
}

/** An SSE stream as its provider writes it: named events for Anthropic, `[DONE]` after OpenAI's chunks. */
function sse(provider: ProviderName, payloads: Array<Json | undefined>, eventNames: string[]): string[] {
  const events = payloads.flatMap((payload, index) => {
    if (payload === undefined) return [];
    const data = `data: ${JSON.stringify(payload)}`;
    return [provider === 'anthropic' ? `event: ${eventNames[index]}\n${data}` : data];
  });
  return provider === 'openai' ? [...events, 'data: [DONE]'] : events;
}

const operation = fc.constantFrom<Operation>('remove', 'null', 'retype', 'empty');
const mutations = fc.array(fc.tuple(fc.nat(), operation), { minLength: 1, maxLength: 3 });
/** Stream cases also drop or repeat whole events. */
const streamCase = fc.record({
  base: fc.nat(),
  edits: fc.array(
    fc.record({
      event: fc.nat(),
      mutation: fc.oneof(fc.tuple(fc.nat(), operation), fc.constantFrom('drop' as const, 'repeat' as const)),
    }),
    { minLength: 1, maxLength: 3 },
  ),
});

let server: RawAnswerServer;
const recordedIds = new Set<string>();
const requests = {
  messages: [{ role: 'user' as const, content: 'Weather in Paris?' }],
  tools: [
    {
      type: 'function' as const,
      function: { name: 'lookup', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    },
  ],
};

beforeAll(async () => {
  server = await startRawAnswerServer();
});
afterAll(async () => {
  await server.close();
});

function gatewayAt(origin: string): Gateway {
  return createGateway({
    catalog,
    env: {},
    providers: {
      openai: { apiKey: KEYS.openai, baseURL: `${origin}/v1` },
      anthropic: { apiKey: KEYS.anthropic, baseURL: origin },
      google: { apiKey: KEYS.google, baseURL: origin },
    },
    // One try per case: every answer is judged on its own (retries are pinned elsewhere).
    retry: { maxRetries: 0 },
    records: { sinks: [new CallbackSink((record: CallRecord) => void recordedIds.add(record.id))] },
  });
}

interface Tally {
  answered: number;
  typedErrors: Record<string, number>;
  callIds: string[];
}

/** One call against the queued answer: an answer meeting the contract, or a SwitchyardError; never anything else. */
async function callOnce(
  gateway: Gateway,
  provider: ProviderName,
  stream: boolean,
  tally: Tally,
  label: () => string,
): Promise<void> {
  let result: Awaited<ReturnType<Gateway['createCompletion']>>;
  try {
    result = await bounded(gateway.createCompletion({ model: MODELS[provider], ...requests, stream }), 10_000, label());
  } catch (error) {
    if (error instanceof SwitchyardError && error.callId) tally.callIds.push(error.callId);
    return expectTyped(error, tally, label);
  }
  tally.callIds.push(result.switchyard.call_id);
  if (!(result instanceof CompletionStream)) {
    expectContract(chatCompletionContract, result, label);
    tally.answered += 1;
    return;
  }
  const chunks: unknown[] = [];
  let failure: unknown;
  try {
    for await (const chunk of result) chunks.push(chunk);
  } catch (error) {
    failure = error;
  }
  for (const chunk of chunks) expectContract(chatCompletionChunkContract, chunk, label);
  if (failure === undefined) tally.answered += 1;
  else expectTyped(failure, tally, label);
}

function expectContract(
  contract: typeof chatCompletionContract | typeof chatCompletionChunkContract,
  value: unknown,
  label: () => string,
): void {
  const parsed = contract.safeParse(value);
  if (!parsed.success)
    expect.fail(
      `${label()}\nbreaks the OpenAI contract: ${parsed.error.message}\n${JSON.stringify(value).slice(0, 600)}`,
    );
}

function expectTyped(error: unknown, tally: Tally, label: () => string): void {
  if (!(error instanceof SwitchyardError))
    expect.fail(`${label()}\nthrew something untyped: ${(error as Error)?.stack ?? String(error)}`);
  expect(error.status, label()).toBeGreaterThanOrEqual(400);
  const key = `${error.status} ${error.code}`;
  if (process.env.FUZZ_SHOW === key) console.info(label(), '\n→', error.message);
  tally.typedErrors[key] = (tally.typedErrors[key] ?? 0) + 1;
}

async function expectEveryCallRecorded(gateway: Gateway, tally: Tally): Promise<void> {
  await gateway.flush();
  const missing = tally.callIds.filter((id) => !recordedIds.has(id));
  expect(missing, 'calls without a record').toEqual([]);
}

describe.each(['openai', 'anthropic', 'google'] as const)('malformed %s answers', (provider) => {
  it(`JSON: ${RUNS} mutated answers end in a contract-true answer or a typed error, recorded`, async () => {
    const gateway = gatewayAt(server.origin);
    const tally: Tally = { answered: 0, typedErrors: {}, callIds: [] };
    const bases = BASES[provider].json;
    await fc.assert(
      fc.asyncProperty(fc.nat(), mutations, async (base, edits) => {
        const original = bases[base % bases.length]!;
        const mutated = applyMutations(original, edits);
        server.enqueue({ json: mutated === undefined ? '' : JSON.stringify(mutated) });
        await callOnce(
          gateway,
          provider,
          false,
          tally,
          () => `${provider} JSON ${JSON.stringify(edits)}: ${JSON.stringify(mutated)?.slice(0, 400)}`,
        );
      }),
      { seed: SEED, numRuns: RUNS },
    );
    await expectEveryCallRecorded(gateway, tally);
    await gateway.close();
    console.info(
      `${provider} JSON: ${RUNS} cases, ${tally.answered} answered, typed errors ` +
        `${JSON.stringify(tally.typedErrors)}, ${tally.callIds.length} records`,
    );
    expect(tally.callIds).toHaveLength(RUNS);
  });

  it(`SSE: ${RUNS} mutated streams end in contract-true chunks or a typed error, recorded`, async () => {
    const gateway = gatewayAt(server.origin);
    const tally: Tally = { answered: 0, typedErrors: {}, callIds: [] };
    const streams = BASES[provider].streams;
    await fc.assert(
      fc.asyncProperty(streamCase, async ({ base, edits }) => {
        const original = streams[base % streams.length]!;
        let payloads: Array<Json | undefined> = [...original];
        let names = original.map((payload) => String((payload as { type?: unknown }).type));
        for (const { event, mutation } of edits) {
          if (payloads.length === 0) break;
          const at = event % payloads.length;
          if (mutation === 'drop') {
            payloads = payloads.filter((_, index) => index !== at);
            names = names.filter((_, index) => index !== at);
          } else if (mutation === 'repeat') {
            payloads.splice(at, 0, payloads[at]);
            names.splice(at, 0, names[at]!);
          } else if (payloads[at] !== undefined) payloads[at] = applyMutations(payloads[at]!, [mutation]);
        }
        server.enqueue({ events: sse(provider, payloads, names) });
        await callOnce(
          gateway,
          provider,
          true,
          tally,
          () => `${provider} SSE ${JSON.stringify(edits)}: ${JSON.stringify(payloads).slice(0, 600)}`,
        );
      }),
      { seed: SEED, numRuns: RUNS },
    );
    await expectEveryCallRecorded(gateway, tally);
    await gateway.close();
    console.info(
      `${provider} SSE: ${RUNS} cases, ${tally.answered} answered, typed errors ` +
        `${JSON.stringify(tally.typedErrors)}, ${tally.callIds.length} records`,
    );
    expect(tally.callIds).toHaveLength(RUNS);
  });
});

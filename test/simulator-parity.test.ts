import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CompletionRequest,
  CompletionStream,
  createGateway,
  type Gateway,
  SwitchyardError,
} from '../src/index.ts';
import { type FakeAnthropicServer, startFakeAnthropicServer } from './fake-servers/anthropic-server.ts';
import { type FakeBedrockServer, startFakeBedrockServer } from './fake-servers/bedrock-server.ts';
import { type FakeGeminiServer, startFakeGeminiServer } from './fake-servers/gemini-server.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from './fake-servers/openai-server.ts';

/**
 * The simulator against the real path: the same requests, on one model per provider, through the simulator
 * (`mock: true`) and through the provider's SDK against its fake server, must give the same warnings, the same
 * number of choices and the same finish reasons, or fail the same way. What the simulator says is what production
 * would say, minus the model's words.
 */
const MODELS = {
  openai: 'gpt-4o-2024-11-20',
  anthropic: 'claude-haiku-4-5-20251001',
  google: 'gemini-2.5-flash',
  bedrock: 'bedrock/claude-sonnet-4-5',
  vertex: 'vertex/gemini-2.5-flash',
} as const;

const hello = [{ role: 'user' as const, content: 'Say hello.' }];
const lookup = {
  type: 'function' as const,
  function: { name: 'lookup', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};
const book = { type: 'function' as const, function: { name: 'book', parameters: { type: 'object', properties: {} } } };

/** Requests that exercise each conversion: dropped, converted and mapped parameters, limits, tools, content. */
const CASES: Array<[label: string, request: Omit<CompletionRequest, 'model'>]> = [
  ['plain', { messages: hello }],
  ['n: 3', { messages: hello, n: 3 }],
  ['max_tokens: 2', { messages: hello, max_tokens: 2 }],
  ['stop: ["l"]', { messages: hello, stop: ['l'] }],
  [
    'sampling',
    { messages: hello, temperature: 0.3, top_p: 0.9, presence_penalty: 0.1, frequency_penalty: 0.2, seed: 7 },
  ],
  ['logprobs', { messages: hello, logprobs: true, top_logprobs: 2 }],
  ['user and service tier', { messages: hello, user: 'u-1', service_tier: 'flex' }],
  ['logit_bias', { messages: hello, logit_bias: { '50256': -100 } }],
  [
    'tools, auto, one at a time',
    { messages: hello, tools: [lookup, book], tool_choice: 'auto', parallel_tool_calls: false },
  ],
  [
    'allowed_tools',
    {
      messages: hello,
      tools: [lookup, book],
      tool_choice: {
        type: 'allowed_tools',
        allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'lookup' } }] },
      },
    },
  ],
  ['a custom tool', { messages: hello, tools: [lookup, { type: 'custom', custom: { name: 'sql' } }] }],
  [
    'an audio part',
    {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Listen.' },
            { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
          ],
        },
      ],
    },
  ],
  ['stream', { messages: hello, stream: true, stream_options: { include_usage: true } }],
  ['stream with max_tokens', { messages: hello, stream: true, max_tokens: 2 }],
];

let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let gemini: FakeGeminiServer;
let bedrock: FakeBedrockServer;
let real: Gateway;
const simulated = createGateway({ mock: true, env: {}, retry: { maxRetries: 0 } });

beforeAll(async () => {
  [openai, anthropic, gemini, bedrock] = await Promise.all([
    startFakeOpenAIServer(),
    startFakeAnthropicServer(),
    startFakeGeminiServer(),
    startFakeBedrockServer(),
  ]);
  real = createGateway({
    env: {},
    retry: { maxRetries: 0 },
    providers: {
      openai: { apiKey: 'sk-parity-openai', baseURL: openai.url },
      anthropic: { apiKey: 'sk-ant-parity', baseURL: anthropic.url },
      google: { apiKey: 'parity-google', baseURL: gemini.url },
      bedrock: {
        region: 'us-east-1',
        baseURL: bedrock.url,
        credentials: { accessKeyId: 'AKIDPARITY', secretAccessKey: 'parity-secret' },
      },
      vertex: { apiKey: 'ya29.parity', baseURL: gemini.url, project: 'parity' },
    },
  });
});
afterAll(async () => {
  await Promise.all([
    openai.close(),
    anthropic.close(),
    gemini.close(),
    bedrock.close(),
    real.close(),
    simulated.close(),
  ]);
});

/** What a call shows besides the model's words. */
async function observe(gateway: Gateway, request: CompletionRequest) {
  try {
    const result = await gateway.createCompletion(request);
    if (!(result instanceof CompletionStream)) {
      return {
        warnings: result.switchyard.warnings,
        choices: result.choices.length,
        finish: result.choices.map((choice) => choice.finish_reason),
      };
    }
    const finish: Array<string | null> = [];
    const indexes = new Set<number>();
    for await (const chunk of result) {
      for (const choice of chunk.choices) {
        indexes.add(choice.index);
        if (choice.finish_reason) finish.push(choice.finish_reason);
      }
    }
    return { warnings: result.switchyard.warnings, choices: indexes.size, finish };
  } catch (error) {
    if (!(error instanceof SwitchyardError)) throw error;
    return { error: { status: error.status, code: error.code, param: error.param } };
  }
}

/** One row per case and provider, printed at the end: the parity table of the closing note. */
const table: string[] = [];
afterAll(() => console.info(`simulator parity (same on both paths):\n${table.join('\n')}`));

describe.each(Object.entries(MODELS))('%s: the simulator says what the provider path says', (provider, model) => {
  it.each(CASES)('%s', async (label, request) => {
    const expected = await observe(real, { ...request, model } as CompletionRequest);
    const actual = await observe(simulated, { ...request, model } as CompletionRequest);
    expect(actual).toEqual(expected);
    const summary =
      'error' in expected
        ? `error ${expected.error.status} ${expected.error.code}`
        : `${expected.choices} choice(s), finish ${expected.finish.join('/')}, warnings ` +
          `${expected.warnings.map((warning) => `${warning.code}:${warning.param}`).join(' ') || 'none'}`;
    table.push(`| ${provider} | ${label} | ${summary} |`);
  });
});

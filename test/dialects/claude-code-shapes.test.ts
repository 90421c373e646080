import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockProvider } from '../../src/testing/index.ts';
import { startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * The shapes Claude Code 2.1 sends beyond a plain Messages request, each on a Claude, an OpenAI and a Gemini model:
 * a system message in the middle of `messages`, `max_tokens` above what the model writes, `context_management`,
 * `thinking.display`, deferred tools, a tool result without content.
 */
const openai = await useFakeOpenAIServer();
const anthropic = await startFakeAnthropicServer();
const gemini = await startFakeGeminiServer();
const scripted = new MockProvider();
let upstreams: TestServer;
let simulator: TestServer;
beforeAll(async () => {
  simulator = await startTestServer({ mock: scripted });
  upstreams = await startTestServer({
    mock: false,
    gateway: {
      env: {},
      retry: { maxRetries: 0 },
      providers: {
        openai: { apiKey: 'sk-upstream', baseURL: openai.url },
        anthropic: { apiKey: 'sk-ant-upstream', baseURL: anthropic.url },
        google: { apiKey: 'gm-upstream', baseURL: gemini.url },
      },
    },
  });
});
afterAll(async () => {
  await Promise.all([upstreams.stop(), simulator.stop(), anthropic.close(), gemini.close()]);
});

const client = (server: TestServer) => new Anthropic({ baseURL: server.url, apiKey: server.key, maxRetries: 0 });
type Warned = Anthropic.Message & { switchyard: { warnings: Array<{ code: string; param?: string }> } };

const environment = '# Environment\n - Primary working directory: /work';
/** Claude Code's turn: the prompt's system blocks on top, the environment as a system message after the user's. */
const turn = (model: string): Anthropic.MessageCreateParamsNonStreaming => ({
  model,
  max_tokens: 4_000,
  system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Say hello' }] },
    {
      role: 'system',
      content: [{ type: 'text', text: environment, cache_control: { type: 'ephemeral' } }],
    } as unknown as Anthropic.MessageParam,
  ],
});

describe('a system message in the middle of messages', () => {
  it('reaches Claude as a system message where it was, the top-level system as it was', async () => {
    const message = await client(upstreams).messages.create(turn('claude-sonnet-4-5'));
    expect(message.content[0]).toMatchObject({ type: 'text' });
    const sent = anthropic.requests.at(-1)!.body;
    expect(sent.system).toEqual([{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }]);
    expect(sent.messages).toEqual([
      { role: 'user', content: 'Say hello' },
      { role: 'system', content: [{ type: 'text', text: environment, cache_control: { type: 'ephemeral' } }] },
    ]);
  });

  it('reaches an OpenAI model as a system message in place', async () => {
    await client(upstreams).messages.create(turn('gpt-4o-latest'));
    const sent = openai.requests.at(-1)!.body.messages;
    expect(sent.map((message: { role: string }) => message.role)).toEqual(['system', 'user', 'system']);
    expect(JSON.stringify(sent[2].content)).toContain('Primary working directory');
  });

  it('reaches Gemini merged into the system instruction, with a warning that says so', async () => {
    const message = (await client(upstreams).messages.create(turn('gemini-2.5-flash'))) as Warned;
    const sent = gemini.requests.at(-1)!.body;
    const instruction = sent.systemInstruction.parts.map((part: { text: string }) => part.text).join('\n');
    expect(instruction).toContain('You are Claude Code.');
    expect(instruction).toContain('Primary working directory');
    expect(sent.contents).toEqual([{ role: 'user', parts: [{ text: 'Say hello' }] }]);
    expect(message.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'converted_parameter', param: 'messages[2]' }),
    );
  });

  it('is still refused without content, as any message', async () => {
    const error = await client(simulator)
      .messages.create({
        model: 'gpt-4o-latest',
        max_tokens: 10,
        messages: [{ role: 'system' } as never],
      })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.message).toContain('messages[0].content');
  });
});

describe('max_tokens above what the model writes', () => {
  it('is lowered to the model’s limit with a warning, on every model, and the call goes on', async () => {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Hi' }];
    for (const [model, limit] of [
      ['gpt-4o-latest', 16_384],
      ['claude-haiku-4-5', 64_000],
    ] as const) {
      const stream = client(simulator).messages.stream({ model, max_tokens: 128_000, messages });
      const message = await stream.finalMessage();
      expect(message.content[0], model).toMatchObject({ type: 'text' });
      expect(scripted.calls.at(-1)!.body.max_tokens, model).toBe(limit);
    }
    const { data } = await client(simulator)
      .messages.create({ model: 'gpt-4o-latest', max_tokens: 20_000, messages }, { timeout: 60_000 })
      .withResponse();
    expect((data as Warned).switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'converted_parameter', param: 'max_tokens' }),
    );
  });
});

describe('fields Claude Code sends that no model here takes as they are', () => {
  const body = (model: string) =>
    ({
      model,
      max_tokens: 1_000,
      messages: [{ role: 'user', content: 'Hi' }],
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      tools: [
        {
          name: 'DeferredToolPlaceholder',
          description: 'Reserved placeholder; never call this tool.',
          input_schema: { type: 'object', properties: {} },
          defer_loading: true,
        },
      ],
    }) as unknown as Anthropic.MessageCreateParamsNonStreaming;

  it('context_management is not passed on, with a warning naming it', async () => {
    const message = (await client(simulator).messages.create(body('gpt-4o-latest'))) as Warned;
    expect(message.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'unsupported_parameter', param: 'context_management' }),
    );
  });

  it('a deferred tool is sent up front, as an ordinary tool, with a warning', async () => {
    const message = (await client(simulator).messages.create(body('claude-haiku-4-5'))) as Warned;
    expect(scripted.calls.at(-1)!.body.tools).toEqual([
      expect.objectContaining({
        type: 'function',
        function: expect.objectContaining({ name: 'DeferredToolPlaceholder' }),
      }),
    ]);
    expect(message.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'converted_parameter', param: 'tools[0].defer_loading' }),
    );
  });

  it('thinking display "omitted" gives the thinking blocks without their text, signatures kept', async () => {
    const request = {
      model: 'claude-haiku-4-5',
      max_tokens: 4_000,
      thinking: { type: 'enabled', budget_tokens: 2_000, display: 'omitted' },
      messages: [{ role: 'user', content: 'Think, then answer.' }],
    } as Anthropic.MessageCreateParamsNonStreaming;
    const plain = await client(simulator).messages.create(request);
    expect(plain.content[0]).toMatchObject({ type: 'thinking', thinking: '' });
    expect((plain.content[0] as Anthropic.ThinkingBlock).signature).not.toBe('');
    const streamed = await client(simulator)
      .messages.stream({ ...request, stream: true })
      .finalMessage();
    expect(streamed.content[0]).toMatchObject({ type: 'thinking', thinking: '' });
    expect((streamed.content[0] as Anthropic.ThinkingBlock).signature).not.toBe('');
  });
});

describe('thinking.display', () => {
  const ask = async (model: string, thinking: Anthropic.ThinkingConfigParam) =>
    (await client(upstreams).messages.create({
      model,
      max_tokens: 4_000,
      thinking,
      messages: [{ role: 'user', content: 'Think, then answer.' }],
    })) as Warned;

  it('reaches Claude as it was sent, with a budget or adaptive thinking', async () => {
    await ask('claude-sonnet-4-5', { type: 'enabled', budget_tokens: 2_000, display: 'omitted' });
    expect(anthropic.requests.at(-1)!.body.thinking).toEqual({
      type: 'enabled',
      budget_tokens: 2_000,
      display: 'omitted',
    });
    await ask('claude-sonnet-4-6', { type: 'adaptive', display: 'summarized' });
    expect(anthropic.requests.at(-1)!.body.thinking).toEqual({ type: 'adaptive', display: 'summarized' });
    await ask('claude-sonnet-4-5', { type: 'enabled', budget_tokens: 2_000 });
    expect(anthropic.requests.at(-1)!.body.thinking).not.toHaveProperty('display');
  });

  it('is only how the answer shows reasoning on another model: no warning', async () => {
    const message = await ask('gpt-4o-latest', { type: 'adaptive', display: 'omitted' });
    expect(message.switchyard.warnings.map((warning) => warning.param)).not.toContain('thinking.display');
  });
});

describe('a tool result with content null', () => {
  it('is a 400 naming the field, not a 500 (issue 36 item 13: Anthropic takes a string or blocks there)', async () => {
    const error = await client(simulator)
      .messages.create({
        model: 'gpt-4o-latest',
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'List the files.' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: null as never }] },
        ],
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400 });
    expect(String((error as Error).message)).toContain('messages[2].content[0].content');
  });
});

describe("a tool search result (Claude Code's ToolSearch)", () => {
  it('reaches any model as text naming the tools it loaded', async () => {
    await client(simulator).messages.create({
      model: 'gemini-2.5-flash',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'Fetch the page.' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_s', name: 'ToolSearch', input: { query: 'select:WebFetch' } }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_s',
              content: [{ type: 'tool_reference', tool_name: 'WebFetch' }] as never,
            },
          ],
        },
      ],
    });
    expect(scripted.calls.at(-1)!.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'toolu_s',
      content: 'Tool "WebFetch" loaded.',
    });
  });
});

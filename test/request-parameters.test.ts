import { describe, expect, it } from 'vitest';
import { type CompletionRequest, createGateway } from '../src/index.ts';
import { REQUEST_PARAMETERS } from '../src/request/request-parameters.ts';
import { startFakeAnthropicServer } from './fake-servers/anthropic-server.ts';
import { useFakeOpenAIServer } from './helpers/openai-env.ts';

/**
 * The request shapes OpenAI clients send today pass, and reach each provider as that provider can take them: newer
 * reasoning efforts, custom tools and `allowed_tools`, and content a model cannot read.
 */
const server = await useFakeOpenAIServer();
const gateway = (options: Parameters<typeof createGateway>[0] = {}) =>
  createGateway({
    env: {},
    retry: { maxRetries: 0 },
    providers: {
      openai: { apiKey: 'sk-test-parameters', baseURL: server.url },
      groq: { apiKey: 'gsk-test', baseURL: server.url },
    },
    ...options,
  });
const hello = [{ role: 'user' as const, content: 'hi' }];
const sent = () => server.requests.at(-1)!.body;

describe('the parameter table', () => {
  it('has a row for every parameter an OpenAI client may send, and no row is both sent and ours', () => {
    const openAIParams: Array<keyof CompletionRequest> = [
      'reasoning_effort',
      'verbosity',
      'prompt_cache_key',
      'safety_identifier',
      'web_search_options',
      'modalities',
    ];
    for (const param of openAIParams) expect(REQUEST_PARAMETERS[param], param).toBeDefined();
    expect(REQUEST_PARAMETERS.metadata.kind).toBe('ours');
    expect(REQUEST_PARAMETERS.temperature).toMatchObject({ kind: 'sent', gate: 'temperature' });
  });
});

describe('reasoning_effort as OpenAI clients send it', () => {
  it('passes "xhigh" and "none" to a model that takes them', async () => {
    await gateway().createCompletion({ model: 'gpt-5.2-2025-12-11', messages: hello, reasoning_effort: 'xhigh' });
    expect(sent().reasoning_effort).toBe('xhigh');
    await gateway().createCompletion({ model: 'gpt-5.2-2025-12-11', messages: hello, reasoning_effort: 'none' });
    expect(sent().reasoning_effort).toBe('none');
  });

  it('passes "minimal" where the model has it, else the nearest level with a warning', async () => {
    await gateway().createCompletion({ model: 'gpt-5-2025-08-07', messages: hello, reasoning_effort: 'minimal' });
    expect(sent().reasoning_effort).toBe('minimal');
    const response = await gateway().createCompletion({
      model: 'o3-2025-04-16',
      messages: hello,
      reasoning_effort: 'minimal',
    });
    expect(sent().reasoning_effort).toBe('low');
    expect(response.switchyard.warnings).toEqual([
      expect.objectContaining({ code: 'model_deprecated' }),
      expect.objectContaining({
        code: 'converted_parameter',
        param: 'reasoning',
        message: expect.stringContaining('"low" was sent'),
      }),
    ]);
  });

  it('refuses "none" where reasoning cannot stop, pointing to reasoning: { effort: "disabled" }', async () => {
    const before = server.requests.length;
    await expect(
      gateway().createCompletion({ model: 'o3-2025-04-16', messages: hello, reasoning_effort: 'none' }),
    ).rejects.toMatchObject({
      status: 400,
      param: 'reasoning_effort',
      code: 'reasoning_not_disabled',
      message: expect.stringContaining('reasoning: { effort: "disabled" }'),
    });
    expect(server.requests.length).toBe(before);
  });
});

describe("OpenAI's newer tool kinds", () => {
  const tools = [
    { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: {} } } },
    { type: 'function' as const, function: { name: 'book', parameters: { type: 'object', properties: {} } } },
    { type: 'custom' as const, custom: { name: 'sql', description: 'A SQL query' } },
  ];
  const allowed = {
    type: 'allowed_tools' as const,
    allowed_tools: { mode: 'required' as const, tools: [{ type: 'function', function: { name: 'lookup' } }] },
  };

  it('reach OpenAI as they are', async () => {
    await gateway().createCompletion({ model: 'gpt-4o-2024-11-20', messages: hello, tools, tool_choice: allowed });
    expect(sent().tools).toEqual(tools);
    expect(sent().tool_choice).toEqual(allowed);
  });

  it('are made portable elsewhere: only the allowed tools, custom ones as functions, with warnings', async () => {
    const response = await gateway().createCompletion({
      model: 'groq/gpt-oss-120b',
      messages: hello,
      tools,
      tool_choice: allowed,
    });
    expect(sent().tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(['lookup']);
    expect(sent().tool_choice).toBe('required');
    expect(response.switchyard.warnings.map((warning) => [warning.code, warning.param])).toEqual([
      ['converted_parameter', 'tools'],
      ['converted_parameter', 'tool_choice'],
    ]);
  });

  it('reach Anthropic as function tools and a tool choice it knows', async () => {
    const anthropic = await startFakeAnthropicServer();
    try {
      const claude = createGateway({
        env: {},
        providers: { anthropic: { apiKey: 'sk-ant-test', baseURL: anthropic.url } },
      });
      await claude.createCompletion({ model: 'claude-haiku-4-5', messages: hello, tools, tool_choice: allowed });
      const body = anthropic.requests.at(-1)!.body;
      expect(body.tools.map((tool: { name: string }) => tool.name)).toEqual(['lookup']);
      expect(body.tool_choice).toEqual({ type: 'any' });
    } finally {
      await anthropic.close();
    }
  });

  it('a custom tool on a provider without them goes as a function under strict too (a conversion)', async () => {
    await gateway({ strict: true }).createCompletion({ model: 'groq/gpt-oss-120b', messages: hello, tools });
    expect(sent().tools[2]).toMatchObject({ type: 'function', function: { name: 'sql', description: 'A SQL query' } });
  });
});

describe('content a model cannot read', () => {
  const withImage = [
    {
      role: 'user' as const,
      content: [
        { type: 'text' as const, text: 'What is this?' },
        { type: 'image_url' as const, image_url: { url: 'https://example.com/a.png' } },
      ],
    },
  ];

  it('an image for a model without image input is not sent, with a warning', async () => {
    const response = await gateway().createCompletion({ model: 'groq/gpt-oss-120b', messages: withImage });
    expect(sent().messages[0].content).toEqual([{ type: 'text', text: 'What is this?' }]);
    expect(response.switchyard.warnings).toEqual([
      expect.objectContaining({ code: 'unsupported_content', param: 'messages[0].content' }),
    ]);
  });

  it('is an error under strict', async () => {
    await expect(
      gateway({ strict: true }).createCompletion({ model: 'groq/gpt-oss-120b', messages: withImage }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'unsupported_parameter',
      param: 'messages[0].content',
    });
  });

  it('an image for a model that reads images is sent as it is', async () => {
    await gateway().createCompletion({ model: 'gpt-4o-2024-11-20', messages: withImage });
    expect(sent().messages[0].content).toEqual(withImage[0]!.content);
  });
});

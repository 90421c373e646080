import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ResponseCreateParamsNonStreaming, Tool } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * The tools OpenAI's Responses API runs itself, as Codex and the Agents SDK send them with their defaults: web search
 * reaches each provider's own search (dropped with a warning where a model has none), every other one is dropped with
 * a warning, never a 400 for the whole request (an error under strict only). Codex's `apply_patch` (a custom tool)
 * comes back from Claude as a custom tool call. Anthropic's web search tool through the Messages API likewise.
 */
const openai = await useFakeOpenAIServer();
const anthropic = await startFakeAnthropicServer();
const gemini = await startFakeGeminiServer();
let server: TestServer;
let strict: TestServer;
beforeAll(async () => {
  const gateway = {
    env: {},
    retry: { maxRetries: 0 },
    providers: {
      openai: { apiKey: 'sk-up', baseURL: openai.url },
      anthropic: { apiKey: 'sk-ant-up', baseURL: anthropic.url },
      google: { apiKey: 'gm-up', baseURL: gemini.url },
    },
  };
  server = await startTestServer({ mock: false, gateway });
  strict = await startTestServer({ mock: false, gateway: { ...gateway, strict: true } });
});
afterAll(async () => {
  await Promise.all([server.stop(), strict.stop(), anthropic.close(), gemini.close()]);
});

type Warned = { switchyard: { warnings: Array<{ code: string; param?: string }> } };
const warned = (response: object) => response as unknown as Warned;
const exec: Tool = {
  type: 'function',
  name: 'exec_command',
  description: 'Runs a command.',
  strict: false,
  parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
};
/** Codex's default search (`web_search = "cached"`), and its live one. */
const codexSearch = { type: 'web_search', external_web_access: false } as Tool;
const liveSearch = { type: 'web_search', external_web_access: true } as Tool;
const turn = (model: string, tools: Tool[] = [exec, liveSearch]): ResponseCreateParamsNonStreaming => ({
  model,
  instructions: 'You are Codex.',
  input: 'Say hello',
  tools,
  tool_choice: 'auto',
});

describe("Codex's web_search tool", () => {
  it('live, reaches Claude as Anthropic’s web search, beside the functions', async () => {
    await server.openai().responses.create(turn('claude-sonnet-4-5'));
    const sent = anthropic.requests.at(-1)!.body.tools;
    expect(sent.map((tool: { name: string }) => tool.name)).toEqual(['exec_command', 'web_search']);
    expect(sent[1]).toEqual({ type: 'web_search_20250305', name: 'web_search' });
  });

  it('cached only (Codex’s default) is not widened to the live web: dropped with a warning', async () => {
    const response = warned(await server.openai().responses.create(turn('claude-sonnet-4-5', [exec, codexSearch])));
    const sent = anthropic.requests.at(-1)!.body.tools;
    expect(sent.map((tool: { name: string }) => tool.name)).toEqual(['exec_command']);
    expect(response.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'unsupported_parameter', param: 'tools[1].external_web_access' }),
    );
  });

  it('is dropped with a warning on an OpenAI model whose chat API does not search', async () => {
    const response = warned(await server.openai().responses.create(turn('gpt-5.1')));
    expect(openai.requests.at(-1)!.body).not.toHaveProperty('web_search_options');
    expect(response.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'unsupported_parameter', param: 'web_search_options' }),
    );
  });

  it('reaches an OpenAI search model as web_search_options', async () => {
    const search = { type: 'web_search', search_context_size: 'low' } as Tool;
    await server.openai().responses.create(turn('openai/gpt-5-search-api', [search]));
    expect(openai.requests.at(-1)!.body.web_search_options).toEqual({ search_context_size: 'low' });
  });

  it('grounds Gemini in Google Search without functions, and is dropped with a warning beside them', async () => {
    await server.openai().responses.create(turn('gemini-2.5-flash', [liveSearch]));
    expect(gemini.requests.at(-1)!.body.tools).toEqual([{ googleSearch: {} }]);
    const response = warned(await server.openai().responses.create(turn('gemini-2.5-flash')));
    expect(gemini.requests.at(-1)!.body.tools).toEqual([
      { functionDeclarations: [expect.objectContaining({ name: 'exec_command' })] },
    ]);
    expect(response.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'unsupported_parameter', param: 'web_search_options' }),
    );
  });

  it('is an error under strict where it cannot be sent, naming it', async () => {
    const error = await strict
      .openai()
      .responses.create(turn('gpt-5.1'))
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe('web_search_options');
  });
});

describe('an answer of Claude that searched', () => {
  const searched = {
    content: [
      { type: 'server_tool_use' as const, id: 'srvtoolu_1', name: 'web_search', input: { query: 'switchyard' } },
      {
        type: 'web_search_tool_result' as const,
        tool_use_id: 'srvtoolu_1',
        content: [{ type: 'web_search_result', url: 'https://example.com', title: 'Example', encrypted_content: 'e' }],
      },
      { type: 'text' as const, text: 'Switchyard is a gateway.' },
    ],
  };

  it('gives the text the model wrote from what it found, streamed or not', async () => {
    anthropic.enqueue(searched, searched);
    const plain = await server.openai().responses.create(turn('claude-sonnet-4-5', [codexSearch]));
    expect(plain.output_text).toBe('Switchyard is a gateway.');
    const stream = server.openai().responses.stream({ ...turn('claude-sonnet-4-5', [codexSearch]), stream: true });
    expect((await stream.finalResponse()).output_text).toBe('Switchyard is a gateway.');
  });
});

describe('the other tools OpenAI runs itself', () => {
  const builtIns = [
    { type: 'file_search', vector_store_ids: ['vs_1'] },
    { type: 'code_interpreter', container: { type: 'auto' } },
    { type: 'image_generation' },
    { type: 'local_shell' },
    { type: 'mcp', server_label: 'docs', server_url: 'https://example.com/mcp' },
  ] as Tool[];

  it('are dropped with a warning each, and the call goes on', async () => {
    openai.enqueue({ content: 'Hello.' });
    const response = warned(await server.openai().responses.create(turn('gpt-5.1', [exec, ...builtIns])));
    expect(response.switchyard.warnings.filter((warning) => warning.code === 'unsupported_parameter')).toEqual(
      builtIns.map((_, index) => expect.objectContaining({ param: `tools[${index + 1}]` })),
    );
    expect(openai.requests.at(-1)!.body.tools).toHaveLength(1);
  });
});

describe("Codex's apply_patch on Claude", () => {
  it('streams back a custom_tool_call with the patch as its input', async () => {
    const patch = '*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n';
    anthropic.enqueue({ content: [{ type: 'tool_use', id: 'toolu_p', name: 'apply_patch', input: { input: patch } }] });
    const applyPatch = {
      type: 'custom',
      name: 'apply_patch',
      description: 'Edits files.',
      format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' },
    } as Tool;
    const stream = server.openai().responses.stream({ ...turn('claude-sonnet-4-5', [exec, applyPatch]), stream: true });
    const final = await stream.finalResponse();
    expect(final.output).toEqual([
      expect.objectContaining({ type: 'custom_tool_call', call_id: 'toolu_p', name: 'apply_patch', input: patch }),
    ]);
  });
});

describe('Anthropic’s web search through the Messages API', () => {
  const client = () => new Anthropic({ baseURL: server.url, apiKey: server.key, maxRetries: 0 });

  it('reaches Claude as the same tool, and another server tool is dropped with a warning', async () => {
    const message = (await client().messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 1_000,
      tools: [
        { type: 'web_search_20250305', name: 'web_search', max_uses: 8, allowed_domains: ['example.com'] },
        { type: 'code_execution_20250825', name: 'code_execution' },
      ],
      messages: [{ role: 'user', content: 'Search the web.' }],
    })) as Anthropic.Message & Warned;
    expect(anthropic.requests.at(-1)!.body.tools).toEqual([
      { type: 'web_search_20250305', name: 'web_search', max_uses: 8, allowed_domains: ['example.com'] },
    ]);
    expect(message.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'unsupported_parameter', param: 'tools[1]' }),
    );
  });
});

import type { ResponseCreateParamsNonStreaming, ResponseInputItem, Tool } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeReasoningState } from '../../src/dialects/responses/reasoning-state.ts';
import { responsesToChat } from '../../src/dialects/responses/to-chat.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Codex with its default configuration: function tools, the free-form `apply_patch` custom tool, and `namespace`
 * tools (groups of tools Codex runs itself, such as an MCP server's). The namespaces reach the model flattened to
 * `<namespace>__<tool>`, and its calls come back to Codex under the namespace and the tool's own name.
 */
const upstream = await useFakeOpenAIServer();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    mock: false,
    gateway: { env: {}, retry: { maxRetries: 0 }, providers: { openai: { apiKey: 'sk-up', baseURL: upstream.url } } },
  });
});
afterAll(() => server.stop());

const object = (properties: Record<string, unknown>, required: string[]) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const longTool = 'resolve_library_identifier_and_fetch_the_latest_documentation';

/** Codex's default tool list, in its shape. */
const codexTools: Tool[] = [
  {
    type: 'function',
    name: 'exec_command',
    description: 'Runs a command in a PTY, returning output or a session ID for ongoing interaction.',
    strict: false,
    parameters: object({ cmd: { type: 'string' }, workdir: { type: 'string' }, yield_time_ms: { type: 'number' } }, [
      'cmd',
    ]),
  },
  {
    type: 'function',
    name: 'update_plan',
    description: 'Updates the task plan.',
    strict: false,
    parameters: object({ plan: { type: 'array', items: { type: 'string' } } }, ['plan']),
  },
  {
    type: 'custom',
    name: 'apply_patch',
    description: 'Use the `apply_patch` tool to edit files. This is a FREEFORM tool.',
    format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch\n' },
  },
  {
    type: 'namespace',
    name: 'mcp__docs__',
    description: 'Tools of the docs MCP server.',
    tools: [
      {
        type: 'function',
        name: 'search',
        description: 'Searches the documentation.',
        strict: false,
        parameters: object({ query: { type: 'string' } }, ['query']),
      },
      {
        type: 'function',
        name: longTool,
        description: 'Finds a library.',
        strict: false,
        parameters: object({ library: { type: 'string' } }, ['library']),
      },
    ],
  },
];

const turn = (input: string | ResponseInputItem[]): ResponseCreateParamsNonStreaming => ({
  model: 'gpt-5.1',
  instructions: 'You are Codex, a coding agent.',
  input,
  tools: codexTools,
  tool_choice: 'auto',
  parallel_tool_calls: false,
  reasoning: { effort: 'medium', summary: 'auto' },
  store: false,
  include: ['reasoning.encrypted_content'],
  prompt_cache_key: '0199b2d4-6c1e-7a52-9f0e-3c1d5e6f7a8b',
});

describe("Codex's default tool list through the Responses API", () => {
  it('flattens namespaces for the model and gives the calls back under their namespace', async () => {
    const client = server.openai();
    const flat = upstream.requests;
    upstream.enqueue({
      tool_calls: [{ id: 'call_n1', name: 'mcp__docs____search', arguments: '{"query":"streams"}' }],
    });
    const first = await client.responses.create(turn('How do streams work here?'));
    const call = first.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ call_id: 'call_n1', name: 'search', namespace: 'mcp__docs__' });

    const sent = flat.at(-1)!.body.tools as Array<{ type: string; function?: { name: string }; custom?: unknown }>;
    const names = sent.map((tool) => tool.function?.name ?? (tool.custom as { name: string }).name);
    expect(names.slice(0, 4)).toEqual(['exec_command', 'update_plan', 'apply_patch', 'mcp__docs____search']);
    expect(names[4]!.length).toBeLessThanOrEqual(64);
    expect(names[4]).toMatch(/^mcp__docs____resolve_library/);

    // The next turn sends the call back with its namespace: the model sees the flattened name again.
    upstream.enqueue({ tool_calls: [{ id: 'call_n2', name: names[4]!, arguments: '{"library":"zod"}' }] });
    const patch = '*** Begin Patch\n*** Add File: notes.md\n+streams\n*** End Patch';
    const input: ResponseInputItem[] = [
      { role: 'user', content: 'Write notes, then: how do streams work here?' },
      { type: 'custom_tool_call', call_id: 'call_p0', name: 'apply_patch', input: patch },
      { type: 'custom_tool_call_output', call_id: 'call_p0', output: 'Success. Updated: A notes.md' },
      ...(first.output as ResponseInputItem[]),
      { type: 'function_call_output', call_id: 'call_n1', output: 'Streams are async iterables.' },
    ];
    const second = await client.responses.create(turn(input));
    const history = flat.at(-1)!.body.messages;
    expect(history.slice(2, 4)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_p0', type: 'custom', custom: { name: 'apply_patch', input: patch } }],
      },
      { role: 'tool', tool_call_id: 'call_p0', content: 'Success. Updated: A notes.md' },
    ]);
    expect(history[4].tool_calls[0].function.name).toBe('mcp__docs____search');
    expect(second.output.find((item) => item.type === 'function_call')).toMatchObject({
      call_id: 'call_n2',
      name: longTool,
      namespace: 'mcp__docs__',
    });
  });

  it('streams a namespaced call that the SDK assembles', async () => {
    upstream.enqueue({
      tool_calls: [{ id: 'call_s1', name: 'mcp__docs____search', arguments: '{"query":"retries"}' }],
    });
    const stream = server.openai().responses.stream({ ...turn('Retries?'), stream: true });
    const final = await stream.finalResponse();
    expect(final.output).toEqual([
      expect.objectContaining({ type: 'function_call', call_id: 'call_s1', name: 'search', namespace: 'mcp__docs__' }),
    ]);
  });

  it('leaves top-level function calls without a namespace', async () => {
    upstream.enqueue({ tool_calls: [{ id: 'call_e1', name: 'exec_command', arguments: '{"cmd":"ls"}' }] });
    const response = await server.openai().responses.create(turn('List the files.'));
    const call = response.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ name: 'exec_command' });
    expect(call).not.toHaveProperty('namespace');
  });

  it("takes an additional_tools item's tools (Codex's default model) and the last configuration update", async () => {
    const exec = {
      type: 'custom',
      name: 'exec',
      description: 'Runs JavaScript.',
      format: { type: 'grammar', syntax: 'lark', definition: 'start: SOURCE' },
    };
    const wait = { type: 'function', name: 'wait', strict: false, parameters: object({}, []) };
    const input = [
      {
        type: 'additional_tools',
        role: 'developer',
        tools: [{ type: 'namespace', name: 'functions', tools: [exec, wait] }],
      },
      { type: 'configuration_update', reasoning: { effort: 'low' } },
      { role: 'user', content: 'Say hello' },
    ] as unknown as ResponseInputItem[];
    upstream.enqueue({ content: 'Hello.' });
    await server.openai().responses.create({ model: 'gpt-5.1', input, reasoning: { context: 'all_turns' } } as never);
    const sent = upstream.requests.at(-1)!.body;
    expect(sent.tools).toEqual([
      {
        type: 'custom',
        custom: {
          name: 'functions__exec',
          description: 'Runs JavaScript.',
          format: { type: 'grammar', grammar: { syntax: 'lark', definition: 'start: SOURCE' } },
        },
      },
      expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'functions__wait' }) }),
    ]);
    expect(sent.messages).toEqual([{ role: 'user', content: 'Say hello' }]);
    expect(sent.reasoning_effort).toBe('low');
  });

  it('sends back only the current turn’s reasoning with reasoning.context "current_turn"', () => {
    const state = encodeReasoningState([
      { type: 'reasoning.text', format: 'anthropic-claude-v1', text: 't', signature: 's' },
    ]);
    const reasoning = { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: state };
    const input = [
      { role: 'user', content: 'First' },
      reasoning,
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'One.' }] },
      { role: 'user', content: 'Second' },
      reasoning,
      { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'ok' },
    ] as unknown as ResponseInputItem[];
    const kept = (context: string) =>
      responsesToChat({ model: 'claude-sonnet-4-5', input, reasoning: { context } } as never).request.messages!.map(
        (message) => 'reasoning_details' in message && message.reasoning_details !== undefined,
      );
    expect(kept('all_turns')).toEqual([false, true, false, true, false]);
    expect(kept('current_turn')).toEqual([false, false, false, true, false]);
  });

  it('streams an OpenAI model’s apply_patch call back as a custom_tool_call, input events and all', async () => {
    const patch = '*** Begin Patch\n*** Add File: notes.md\n+streams\n*** End Patch';
    upstream.enqueue({ custom_calls: [{ id: 'call_p1', name: 'apply_patch', input: patch }] });
    const stream = server.openai().responses.stream({ ...turn('Write notes.'), stream: true });
    const types: string[] = [];
    stream.on('event', (event) => types.push(event.type));
    const final = await stream.finalResponse();
    expect(final.output).toEqual([
      expect.objectContaining({ type: 'custom_tool_call', call_id: 'call_p1', name: 'apply_patch', input: patch }),
    ]);
    expect(types).toContain('response.custom_tool_call_input.delta');
    expect(types).toContain('response.custom_tool_call_input.done');
  });

  it('continues a response that made a custom call through previous_response_id', async () => {
    const patch = '*** Begin Patch\n*** Add File: a.md\n+a\n*** End Patch';
    upstream.enqueue({ custom_calls: [{ id: 'call_c1', name: 'apply_patch', input: patch }] }, { content: 'Done.' });
    const first = await server.openai().responses.create({ ...turn('Write a.md'), store: true });
    expect(first.output[0]).toMatchObject({ type: 'custom_tool_call', input: patch });
    await server.openai().responses.create({
      ...turn([{ type: 'custom_tool_call_output', call_id: 'call_c1', output: 'Success.' }]),
      previous_response_id: first.id,
    });
    const history = upstream.requests.at(-1)!.body.messages;
    expect(history.at(-2).tool_calls).toEqual([
      { id: 'call_c1', type: 'custom', custom: { name: 'apply_patch', input: patch } },
    ]);
  });
});

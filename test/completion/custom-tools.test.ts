import { afterAll, describe, expect, it } from 'vitest';
import { type CompletionRequestNonStreaming, createGateway } from '../../src/index.ts';
import { startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { collect } from '../helpers/chunks.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';

/**
 * A custom (free-form) tool, such as Codex's `apply_patch`, on a provider that has only function tools: sent as a
 * function taking one string, its calls given back as custom calls with that string as `input`, and custom calls in
 * the history sent as calls of the function. OpenAI, which has custom tools, gets them as they are.
 */
const openai = await useFakeOpenAIServer();
const anthropic = await startFakeAnthropicServer();
const gemini = await startFakeGeminiServer();
afterAll(async () => {
  await Promise.all([anthropic.close(), gemini.close()]);
});
const gateway = createGateway({
  env: {},
  retry: { maxRetries: 0 },
  providers: {
    openai: { apiKey: 'sk-up', baseURL: openai.url },
    anthropic: { apiKey: 'sk-ant-up', baseURL: anthropic.url },
    google: { apiKey: 'gm-up', baseURL: gemini.url },
  },
});

const patch = '*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n';
const grammar = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\n';
const request = (model: string): CompletionRequestNonStreaming => ({
  model,
  max_tokens: 1_000,
  messages: [{ role: 'user', content: 'Create hello.txt' }],
  tools: [
    {
      type: 'custom',
      custom: {
        name: 'apply_patch',
        description: 'Edits files.',
        format: { type: 'grammar', grammar: { syntax: 'lark', definition: grammar } },
      },
    },
    { type: 'function', function: { name: 'exec_command', parameters: { type: 'object', properties: {} } } },
  ],
});
const customCall = (input: string) => [
  { id: expect.any(String), type: 'custom', custom: { name: 'apply_patch', input } },
];

describe('a custom tool on Claude', () => {
  it('goes as a function taking one string, and its call comes back as a custom call', async () => {
    anthropic.enqueue({ content: [{ type: 'tool_use', id: 'toolu_p', name: 'apply_patch', input: { input: patch } }] });
    const response = await gateway.createCompletion(request('claude-sonnet-4-5'));
    expect(response.choices[0]!.message.tool_calls).toEqual([
      { id: 'toolu_p', type: 'custom', custom: { name: 'apply_patch', input: patch } },
    ]);
    expect(response.choices[0]!.finish_reason).toBe('tool_calls');
    expect(response.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'converted_parameter', param: 'tools' }),
    );
    const sent = anthropic.requests.at(-1)!.body.tools;
    expect(sent[0]).toMatchObject({
      name: 'apply_patch',
      description: 'Edits files.',
      input_schema: { type: 'object', required: ['input'], properties: { input: { type: 'string' } } },
    });
    expect(sent[0].input_schema.properties.input.description).toContain(grammar);
    expect(sent[1]).toMatchObject({ name: 'exec_command' });
  });

  it('streams the call whole, as one custom delta', async () => {
    anthropic.enqueue({ content: [{ type: 'tool_use', id: 'toolu_s', name: 'apply_patch', input: { input: patch } }] });
    const chunks = await collect(await gateway.createCompletion({ ...request('claude-sonnet-4-5'), stream: true }));
    const calls = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([{ index: 0, id: 'toolu_s', type: 'custom', custom: { name: 'apply_patch', input: patch } }]);
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === 'tool_calls')).toBe(true);
    // The record keeps the call as it keeps a whole answer's: the input as its arguments.
    await gateway.flush();
    const { data } = await gateway.calls.list({ limit: 1 });
    expect(data[0]!.output!.tool_calls).toEqual([
      { id: 'toolu_s', type: 'custom', function: { name: 'apply_patch', arguments: patch } },
    ]);
  });

  it('sends a custom call of the history, its result and a custom tool choice as the function’s', async () => {
    anthropic.enqueue({ content: [{ type: 'text', text: 'Done.' }] });
    await gateway.createCompletion({
      ...request('claude-sonnet-4-5'),
      tool_choice: { type: 'custom', custom: { name: 'apply_patch' } },
      messages: [
        { role: 'user', content: 'Create hello.txt' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'custom', custom: { name: 'apply_patch', input: patch } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'Success. Updated: A hello.txt' },
      ],
    });
    const sent = anthropic.requests.at(-1)!.body;
    expect(sent.messages[1].content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'apply_patch', input: { input: patch } },
    ]);
    expect(sent.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'call_1' });
    expect(sent.tool_choice).toEqual({ type: 'tool', name: 'apply_patch' });
  });

  it('takes arguments without the input string as the input, with a warning', async () => {
    anthropic.enqueue({ content: [{ type: 'tool_use', id: 'toolu_w', name: 'apply_patch', input: { patch } }] });
    const response = await gateway.createCompletion(request('claude-sonnet-4-5'));
    expect(response.choices[0]!.message.tool_calls).toEqual(customCall(JSON.stringify({ patch })));
    expect(response.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'converted_parameter', message: expect.stringContaining('"apply_patch"') }),
    );
  });
});

describe('a custom tool on Gemini', () => {
  it('comes back as a custom call, streamed or not', async () => {
    const call = { functionCall: { id: 'fc_1', name: 'apply_patch', args: { input: patch } } };
    gemini.enqueue({ parts: [call] }, { parts: [call] });
    const response = await gateway.createCompletion(request('gemini-2.5-flash'));
    expect(response.choices[0]!.message.tool_calls).toEqual(customCall(patch));
    const declared = gemini.requests.at(-1)!.body.tools[0].functionDeclarations[0];
    expect(declared).toMatchObject({ name: 'apply_patch', parametersJsonSchema: { required: ['input'] } });
    const chunks = await collect(await gateway.createCompletion({ ...request('gemini-2.5-flash'), stream: true }));
    expect(chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])).toEqual([
      { index: 0, id: expect.any(String), type: 'custom', custom: { name: 'apply_patch', input: patch } },
    ]);
  });
});

describe('a custom tool on OpenAI', () => {
  it('is sent as it is, in chat’s form', async () => {
    openai.enqueue({ content: 'ok' });
    const response = await gateway.createCompletion(request('gpt-5.1'));
    expect(response.switchyard.warnings.filter((warning) => warning.param === 'tools')).toEqual([]);
    expect(openai.requests.at(-1)!.body.tools[0]).toEqual(request('gpt-5.1').tools![0]);
  });
});

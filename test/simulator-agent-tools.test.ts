import Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ResponseInputItem, Tool } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, MemorySink } from '../src/index.ts';
import { createMockProvider } from '../src/testing/index.ts';
import { collect } from './helpers/chunks.ts';
import { startTestServer, type TestServer } from './server/start-test-server.ts';

/**
 * The simulator in the tool loops of coding agents, offline: a forced custom tool answered as a custom call whose
 * input fits its grammar, and under `tool_choice: "auto"` (agents' default) one call of the tool the user's request
 * names ("use apply_patch to create hello.txt"), then words once its result is back.
 */
let server: TestServer;
let client: OpenAI;
beforeAll(async () => {
  server = await startTestServer();
  client = server.openai();
});
afterAll(() => server.stop());

/** Codex's `apply_patch` grammar (codex-rs, apply_patch.lark), as Codex sends it. */
const APPLY_PATCH_LARK = `start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
`;
/** A patch as Codex's parser takes it, written independently of the grammar reader: adds, deletes, updates. */
const PATCH = new RegExp(
  [
    '^\\*\\*\\* Begin Patch\\n(?:',
    '\\*\\*\\* Add File: .+\\n(?:\\+.*\\n)+',
    '|\\*\\*\\* Delete File: .+\\n',
    '|\\*\\*\\* Update File: .+\\n(?:\\*\\*\\* Move to: .+\\n)?',
    '(?:(?:@@(?: .+)?|[+\\- ].*)\\n)*(?:\\*\\*\\* End of File\\n)?',
    ')+\\*\\*\\* End Patch\\n?$',
  ].join(''),
);

const applyPatch: ChatCompletionTool = {
  type: 'custom',
  custom: {
    name: 'apply_patch',
    description: 'Use the `apply_patch` tool to edit files. This is a FREEFORM tool.',
    format: { type: 'grammar', grammar: { syntax: 'lark', definition: APPLY_PATCH_LARK } },
  },
};
const execCommand: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'exec_command',
    parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
  },
};
const customCall = (completion: OpenAI.Chat.ChatCompletion) => {
  const call = completion.choices[0]!.message.tool_calls?.[0];
  expect(call?.type).toBe('custom');
  return call as OpenAI.Chat.ChatCompletionMessageCustomToolCall;
};

describe('a forced custom tool', () => {
  it('is answered with a custom call whose input its Lark grammar accepts: a patch adding the file named', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-5.1',
      messages: [{ role: 'user', content: 'Create notes/todo.md with a first line.' }],
      tools: [execCommand, applyPatch],
      tool_choice: { type: 'custom', custom: { name: 'apply_patch' } },
    });
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    const { custom } = customCall(completion);
    expect(custom.name).toBe('apply_patch');
    expect(custom.input).toMatch(PATCH);
    expect(custom.input).toContain('*** Add File: notes/todo.md\n');
  });

  it('is streamed as custom call deltas the SDK assembles into the same call', async () => {
    const request = {
      model: 'gpt-5.1',
      messages: [{ role: 'user' as const, content: 'Create hello.txt.' }],
      tools: [applyPatch],
      tool_choice: { type: 'custom' as const, custom: { name: 'apply_patch' } },
    };
    const whole = customCall(await client.chat.completions.create(request));
    const streamed = await client.chat.completions.stream(request).finalChatCompletion();
    expect(customCall(streamed as OpenAI.Chat.ChatCompletion).custom).toEqual(whole.custom);
  });

  it('streamed, is recorded as a non-streamed one is, and not cached (a stream cannot replay it)', async () => {
    const sink = new MemorySink();
    const mock = createMockProvider();
    const gateway = createGateway({ mock, cache: {}, records: { sinks: [sink] } });
    const request = {
      model: 'gpt-5.1',
      messages: [{ role: 'user' as const, content: 'Create hello.txt.' }],
      tools: [applyPatch],
      tool_choice: { type: 'custom' as const, custom: { name: 'apply_patch' } },
      stream: true as const,
      temperature: 0,
    };
    for (let round = 0; round < 2; round++) await collect(await gateway.createCompletion(request));
    await gateway.flush();
    const records = sink.records();
    expect(records.map((record) => record.cache)).not.toContain('hit');
    expect(mock.calls).toHaveLength(2);
    expect(records[0]!.output!.tool_calls).toEqual([
      {
        id: expect.any(String),
        type: 'custom',
        function: { name: 'apply_patch', arguments: expect.stringMatching(PATCH) },
      },
    ]);
  });

  it('takes an input its regex matches whole, or free text without a grammar', async () => {
    const ticket: ChatCompletionTool = {
      type: 'custom',
      custom: {
        name: 'open_ticket',
        format: { type: 'grammar', grammar: { syntax: 'regex', definition: '[A-Z]{3}-\\d{4}: .{1,40}' } },
      },
    };
    const sql: ChatCompletionTool = { type: 'custom', custom: { name: 'sql', format: { type: 'text' } } };
    const ask = (tool: ChatCompletionTool, name: string) =>
      client.chat.completions.create({
        model: 'gpt-5.1',
        messages: [{ role: 'user', content: 'Open a ticket for the outage.' }],
        tools: [tool],
        tool_choice: { type: 'custom', custom: { name } },
      });
    expect(customCall(await ask(ticket, 'open_ticket')).custom.input).toMatch(/^[A-Z]{3}-\d{4}: .{1,40}$/);
    expect(customCall(await ask(sql, 'sql')).custom.input).toContain('Open a ticket for the outage.');
  });
});

describe('tool_choice "auto" in a chat loop', () => {
  it('answers in words when the request names no tool', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-5.1',
      messages: [{ role: 'user', content: 'What does the exec_command tool do?' }],
      tools: [execCommand, applyPatch],
    });
    expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
    expect(completion.choices[0]!.finish_reason).toBe('stop');
  });

  it('calls each tool the request names once, in order, then answers with the last result read', async () => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Run exec_command to list the files, then use apply_patch to create hello.txt.' },
    ];
    const called: string[] = [];
    for (let turn = 0; turn < 4; turn++) {
      const message = (
        await client.chat.completions.create({ model: 'gpt-5.1', messages, tools: [execCommand, applyPatch] })
      ).choices[0]!.message;
      const call = message.tool_calls?.[0];
      if (!call) {
        expect(called).toEqual(['exec_command', 'apply_patch']);
        expect(message.content).toContain('(after apply_patch: Success. Updated: A hello.txt)');
        return;
      }
      called.push(call.type === 'custom' ? call.custom.name : call.function.name);
      messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      const result = call.type === 'custom' ? 'Success. Updated: A hello.txt' : 'README.md';
      messages.push({ role: 'tool', tool_call_id: call.id, content: result });
    }
    throw new Error(`the loop never ended; it called ${called.join(', ')}`);
  });
});

// On Claude and Gemini the gateway sends apply_patch as a function whose one string's description holds the grammar:
// the simulator reads it there, as a model would.
describe.each(['gpt-5.1', 'claude-sonnet-5-5', 'gemini-2.5-flash'])(
  "Codex's turn through the Responses API on %s",
  (model) => {
    const codexTools: Tool[] = [
      {
        type: 'function',
        name: 'exec_command',
        description: 'Runs a command in a PTY.',
        strict: false,
        parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
      },
      {
        type: 'custom',
        name: 'apply_patch',
        description: 'Use the `apply_patch` tool to edit files. This is a FREEFORM tool.',
        format: { type: 'grammar', syntax: 'lark', definition: APPLY_PATCH_LARK },
      },
    ];
    const turn = (input: ResponseInputItem[]) =>
      client.responses.create({
        model,
        instructions: 'You are Codex, a coding agent.',
        input,
        tools: codexTools,
        tool_choice: 'auto',
        parallel_tool_calls: false,
        store: false,
      });

    it('makes the apply_patch call asked for, then ends the turn in words once its output is back', async () => {
      const ask: ResponseInputItem[] = [
        {
          role: 'user',
          content: [{ type: 'input_text', text: '<environment_context>cwd /repo</environment_context>' }],
        },
        { role: 'user', content: [{ type: 'input_text', text: 'use apply_patch to create hello.txt' }] },
      ];
      const first = await turn(ask);
      const call = first.output.find((item) => item.type === 'custom_tool_call');
      expect(call).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch' });
      const input = (call as { input: string }).input;
      expect(input).toMatch(PATCH);
      expect(input).toContain('*** Add File: hello.txt\n+');

      const second = await turn([
        ...ask,
        { type: 'custom_tool_call', call_id: (call as { call_id: string }).call_id, name: 'apply_patch', input },
        {
          type: 'custom_tool_call_output',
          call_id: (call as { call_id: string }).call_id,
          output: 'Success. Updated the following files:\nA hello.txt',
        },
      ]);
      expect(second.output.map((item) => item.type)).toEqual(['message']);
      expect(second.output_text).toContain('use apply_patch to create hello.txt');
    });
  },
);

describe("Claude Code's turn through the Messages API", () => {
  const anthropic = () => new Anthropic({ baseURL: server.url, apiKey: server.key, maxRetries: 0 });
  const schema = (properties: Record<string, unknown>) => ({
    type: 'object' as const,
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  });
  const tools: Anthropic.Tool[] = [
    { name: 'Bash', description: 'Executes a bash command.', input_schema: schema({ command: { type: 'string' } }) },
    {
      name: 'Write',
      description: 'Writes a file to the local filesystem.',
      input_schema: schema({ file_path: { type: 'string' }, content: { type: 'string' } }),
    },
    {
      name: 'TodoWrite',
      description: 'Updates the todo list.',
      input_schema: schema({ todos: { type: 'array', items: { type: 'string' } } }),
    },
  ];
  // Claude Code's reminders ride in the user's turn; they name tools, and are not the user's request.
  const reminder = {
    type: 'text' as const,
    text: '<system-reminder>Your todo list is empty. If useful, please use the TodoWrite tool.</system-reminder>',
  };
  const turn = (messages: Anthropic.MessageParam[]) =>
    anthropic()
      .messages.stream({
        model: 'claude-sonnet-4-5',
        max_tokens: 4_096,
        system: 'You are Claude Code.',
        tools,
        messages,
      })
      .finalMessage();

  it('calls the tool the user names (not one a reminder names), then ends the turn', async () => {
    const ask: Anthropic.MessageParam = {
      role: 'user',
      content: [reminder, { type: 'text', text: 'Use the Write tool to create hello.txt' }],
    };
    const first = await turn([ask]);
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((block) => block.type === 'tool_use')!;
    expect(use).toMatchObject({ name: 'Write', input: { file_path: 'hello.txt' } });

    const second = await turn([
      ask,
      { role: 'assistant', content: first.content },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: use.id, content: 'File created successfully' }, reminder],
      },
    ]);
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content.map((block) => block.type)).toEqual(['text']);
  });

  it('answers in words when only a reminder names a tool', async () => {
    const message = await turn([{ role: 'user', content: [reminder, { type: 'text', text: 'What is 2 + 2?' }] }]);
    expect(message.stop_reason).toBe('end_turn');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';
import { type Dialect, dialectError, send } from './dialect-bodies.ts';

/**
 * Hand-written malformed bodies of both dialects (wrong types for every field, nulls, lists for objects, huge
 * numbers, missing roles, unknown item types): each is a 400 in the dialect's error shape naming the field, never a
 * 500. `[what, body, the field's path]`.
 */
type Case = [string, unknown, string];

const R = { model: 'gpt-4o-latest', input: 'hi' };
const item = (value: unknown) => ({ model: 'gpt-4o-latest', input: [value] });
const part = (value: unknown, role = 'user') => item({ role, content: [value] });

const RESPONSES: Case[] = [
  ['a null body', null, 'body'],
  ['a list body', [R], 'body'],
  ['no model', { input: 'hi' }, 'model'],
  ['no input', { model: 'gpt-4o-latest' }, 'input'],
  ['a number model', { ...R, model: 42 }, 'model'],
  ['a number input', { ...R, input: 42 }, 'input'],
  ['an object input', { ...R, input: { role: 'user' } }, 'input'],
  ['a null item', item(null), 'input[0]'],
  ['a list item', item([]), 'input[0]'],
  ['a message without a role', item({ content: 'hi' }), 'input[0].role'],
  ['an unknown role', item({ role: 'robot', content: 'hi' }), 'input[0].role'],
  ['a message without content', item({ role: 'user' }), 'input[0].content'],
  ['a number content', item({ role: 'user', content: 5 }), 'input[0].content'],
  ['a null part', part(null), 'input[0].content[0]'],
  ['a part without a type', part({ text: 'x' }), 'input[0].content[0].type'],
  ['a text part without text', part({ type: 'input_text' }), 'input[0].content[0].text'],
  ['a number text', part({ type: 'input_text', text: 5 }), 'input[0].content[0].text'],
  ['an image in an assistant message', part({ type: 'input_image' }, 'assistant'), 'input[0].content[0].type'],
  [
    'a function call without a call id',
    item({ type: 'function_call', name: 'f', arguments: '{}' }),
    'input[0].call_id',
  ],
  ['object arguments', item({ type: 'function_call', call_id: 'c', name: 'f', arguments: {} }), 'input[0].arguments'],
  ['a number output', item({ type: 'function_call_output', call_id: 'c', output: 5 }), 'input[0].output'],
  ['a null output part', item({ type: 'function_call_output', call_id: 'c', output: [null] }), 'input[0].output[0]'],
  ['a number reasoning state', item({ type: 'reasoning', encrypted_content: 5 }), 'input[0].encrypted_content'],
  ['a string summary', item({ type: 'reasoning', summary: 'x' }), 'input[0].summary'],
  ['an item reference', item({ type: 'item_reference', id: 'x' }), 'input[0]'],
  ['a number item type', item({ type: 7 }), 'input[0].type'],
  ['number instructions', { ...R, instructions: 5 }, 'instructions'],
  ['negative max_output_tokens', { ...R, max_output_tokens: -1 }, 'max_output_tokens'],
  ['fractional max_output_tokens', { ...R, max_output_tokens: 1.5 }, 'max_output_tokens'],
  ['a huge max_output_tokens', { ...R, max_output_tokens: 1e300 }, 'max_output_tokens'],
  ['a string temperature', { ...R, temperature: 'hot' }, 'temperature'],
  ['a list top_p', { ...R, top_p: [] }, 'top_p'],
  ['an object tools', { ...R, tools: {} }, 'tools'],
  ['a null tool', { ...R, tools: [null] }, 'tools[0]'],
  ['a function tool without a name', { ...R, tools: [{ type: 'function' }] }, 'tools[0].name'],
  ['string parameters', { ...R, tools: [{ type: 'function', name: 'f', parameters: 'x' }] }, 'tools[0].parameters'],
  ['a number tool_choice', { ...R, tool_choice: 5 }, 'tool_choice'],
  ['an unknown tool_choice', { ...R, tool_choice: 'sometimes' }, 'tool_choice'],
  ['a function choice without a name', { ...R, tool_choice: { type: 'function' } }, 'tool_choice.name'],
  ['a string text', { ...R, text: 'json' }, 'text'],
  ['a string format', { ...R, text: { format: 'json' } }, 'text.format'],
  [
    'a schema format without a name',
    { ...R, text: { format: { type: 'json_schema', schema: {} } } },
    'text.format.name',
  ],
  ['a string reasoning', { ...R, reasoning: 'high' }, 'reasoning'],
  ['an unknown effort', { ...R, reasoning: { effort: 'extreme' } }, 'reasoning.effort'],
  ['a string metadata', { ...R, metadata: 'x' }, 'metadata'],
  ['a number metadata value', { ...R, metadata: { a: 5 } }, 'metadata.a'],
  ['a string stream', { ...R, stream: 'yes' }, 'stream'],
  ['a string include', { ...R, include: 'reasoning.encrypted_content' }, 'include'],
  ['a number include', { ...R, include: [5] }, 'include[0]'],
  ['a number previous_response_id', { ...R, previous_response_id: 5 }, 'previous_response_id'],
  ['a number user', { ...R, user: 5 }, 'user'],
];

const M = { model: 'gpt-4o-latest', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };
const message = (value: unknown) => ({ ...M, messages: [value] });
const block = (value: unknown, role = 'user') => message({ role, content: [value] });
const png = { type: 'base64', media_type: 'image/png' };

const MESSAGES: Case[] = [
  ['a null body', null, 'body'],
  ['a string body', 'hello', 'body'],
  ['no model', { ...M, model: undefined }, 'model'],
  ['no max_tokens', { ...M, max_tokens: undefined }, 'max_tokens'],
  ['a string max_tokens', { ...M, max_tokens: '100' }, 'max_tokens'],
  ['a zero max_tokens', { ...M, max_tokens: 0 }, 'max_tokens'],
  ['a huge max_tokens', { ...M, max_tokens: 1e300 }, 'max_tokens'],
  ['no messages', { ...M, messages: undefined }, 'messages'],
  ['an object messages', { ...M, messages: { role: 'user' } }, 'messages'],
  ['a null message', message(null), 'messages[0]'],
  ['a list message', message([]), 'messages[0]'],
  ['a message without a role', message({ content: 'hi' }), 'messages[0].role'],
  [
    'an image in a system message',
    message({ role: 'system', content: [{ type: 'image' }] }),
    'messages[0].content[0].type',
  ],
  ['an unknown role', message({ role: 'bot', content: 'hi' }), 'messages[0].role'],
  ['a message without content', message({ role: 'user' }), 'messages[0].content'],
  ['a number content', message({ role: 'user', content: 5 }), 'messages[0].content'],
  ['an object content', message({ role: 'user', content: { type: 'text', text: 'x' } }), 'messages[0].content'],
  ['a null block', block(null), 'messages[0].content[0]'],
  ['a block without a type', block({ text: 'x' }), 'messages[0].content[0].type'],
  ['a text block without text', block({ type: 'text' }), 'messages[0].content[0].text'],
  ['an image without a source', block({ type: 'image' }), 'messages[0].content[0].source'],
  ['an image without data', block({ type: 'image', source: png }), 'messages[0].content[0].source.data'],
  ['a document by URL', block({ type: 'document', source: { type: 'url', url: 'x' } }), 'messages[0].content[0]'],
  ['a tool result without an id', block({ type: 'tool_result', content: 'x' }), 'messages[0].content[0].tool_use_id'],
  [
    'a number tool result',
    block({ type: 'tool_result', tool_use_id: 't', content: 5 }),
    'messages[0].content[0].content',
  ],
  [
    'a string cache_control',
    block({ type: 'text', text: 'x', cache_control: 'x' }),
    'messages[0].content[0].cache_control',
  ],
  ['an unknown block', block({ type: 'search_result' }), 'messages[0].content[0]'],
  [
    'a tool use without an id',
    block({ type: 'tool_use', name: 'f', input: {} }, 'assistant'),
    'messages[0].content[0].id',
  ],
  [
    'a string tool input',
    block({ type: 'tool_use', id: 't', name: 'f', input: 'x' }, 'assistant'),
    'messages[0].content[0].input',
  ],
  [
    'thinking without a signature',
    block({ type: 'thinking', thinking: 'x' }, 'assistant'),
    'messages[0].content[0].signature',
  ],
  ['a number system', { ...M, system: 5 }, 'system'],
  ['a system block without text', { ...M, system: [{ type: 'text' }] }, 'system[0].text'],
  ['an image system block', { ...M, system: [{ type: 'image' }] }, 'system[0].type'],
  ['an object tools', { ...M, tools: {} }, 'tools'],
  ['a null tool', { ...M, tools: [null] }, 'tools[0]'],
  ['a tool without input_schema', { ...M, tools: [{ name: 'f' }] }, 'tools[0].input_schema'],
  ['a custom tool without input_schema', { ...M, tools: [{ type: 'custom', name: 'f' }] }, 'tools[0].input_schema'],
  ['a string input_schema', { ...M, tools: [{ name: 'f', input_schema: 'x' }] }, 'tools[0].input_schema'],
  ['a server tool without a type', { ...M, tools: [{ name: 'web_search', max_uses: 3 }] }, 'tools[0].input_schema'],
  ['a string tool_choice', { ...M, tool_choice: 'auto' }, 'tool_choice'],
  ['a tool choice without a name', { ...M, tool_choice: { type: 'tool' } }, 'tool_choice.name'],
  ['a string thinking', { ...M, thinking: 'on' }, 'thinking'],
  ['thinking without a budget', { ...M, thinking: { type: 'enabled' } }, 'thinking.budget_tokens'],
  ['a string output_config', { ...M, output_config: 'json' }, 'output_config'],
  [
    'a format without a schema',
    { ...M, output_config: { format: { type: 'json_schema' } } },
    'output_config.format.schema',
  ],
  ['a string stop_sequences', { ...M, stop_sequences: 'END' }, 'stop_sequences'],
  ['a number stop sequence', { ...M, stop_sequences: [5] }, 'stop_sequences[0]'],
  ['a number user_id', { ...M, metadata: { user_id: 5 } }, 'metadata.user_id'],
  ['a string temperature', { ...M, temperature: 'hot' }, 'temperature'],
  ['a list top_k', { ...M, top_k: [] }, 'top_k'],
  ['a string stream', { ...M, stream: 'yes' }, 'stream'],
];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ mock: true });
});
afterAll(() => server.stop());

describe.each([
  ['responses', RESPONSES],
  ['messages', MESSAGES],
] as Array<[Dialect, Case[]]>)('malformed %s bodies', (dialect, cases) => {
  it.each(cases)('answers %s with a 400 naming the field', async (_, body, path) => {
    const { status, text } = await send(server, dialect, body);
    expect(status, text).toBe(400);
    const error = dialectError(dialect, text);
    if (typeof error === 'string') throw new Error(error);
    expect(error.message).toContain(path);
    if (dialect === 'responses') expect(error.param).toBe(path);
  });
});

import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Tool results holding images or files (a screenshot tool, an MCP tool, Claude Code's Read of an image or a PDF).
 * Chat's `tool` messages carry text only, so the text stays in the tool message and the images and files follow in
 * a user message after the last tool message of the run (every tool message must follow its assistant's calls), with
 * a warning naming what was moved.
 */
const openai = await useFakeOpenAIServer();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    mock: false,
    gateway: {
      env: {},
      retry: { maxRetries: 0 },
      providers: { openai: { apiKey: 'sk-upstream', baseURL: openai.url } },
    },
  });
});
afterAll(() => server.stop());

const png = 'data:image/png;base64,iVBORw0KGgo=';
const pdf = 'data:application/pdf;base64,JVBERi0xLjQ=';
type Warned = { switchyard: { warnings: Array<{ code: string; param?: string; message: string }> } };

describe('Responses API: function outputs with images and files', () => {
  it('keep their text in the tool messages; the images and files follow them in a user message', async () => {
    const input = [
      { role: 'user', content: 'Compare the two screens.' },
      { type: 'function_call', call_id: 'call_1', name: 'screenshot', arguments: '{"screen":1}' },
      { type: 'function_call', call_id: 'call_2', name: 'screenshot', arguments: '{"screen":2}' },
      {
        type: 'function_call_output',
        call_id: 'call_1',
        output: [
          { type: 'input_text', text: 'Screen 1' },
          { type: 'input_image', image_url: png, detail: 'high' },
        ],
      },
      { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_image', image_url: png }] },
    ] as ResponseInputItem[];
    const response = await server.openai().responses.create({ model: 'gpt-4o', input });
    const sent = openai.requests.at(-1)!.body.messages;
    expect(sent.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
    ]);
    expect(sent[2]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'Screen 1' });
    expect(sent[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_2' });
    expect(sent[3].content).toMatch(/follow/);
    expect(sent[4].content).toEqual([
      { type: 'text', text: expect.stringContaining('call_1') },
      { type: 'image_url', image_url: { url: png, detail: 'high' } },
      { type: 'text', text: expect.stringContaining('call_2') },
      { type: 'image_url', image_url: { url: png } },
    ]);
    const moved = (response as unknown as Warned).switchyard.warnings.filter(
      (warning) => warning.code === 'converted_parameter',
    );
    expect(moved.map((warning) => warning.param)).toEqual(['input[3].output', 'input[4].output']);
  });

  it('a custom tool’s output with a file, before a user message: the moved parts come first', async () => {
    const input = [
      { role: 'user', content: 'Read the report.' },
      { type: 'custom_tool_call', call_id: 'call_r', name: 'read', input: 'report.pdf' },
      {
        type: 'custom_tool_call_output',
        call_id: 'call_r',
        output: [{ type: 'input_file', file_data: pdf, filename: 'report.pdf' }],
      },
      { role: 'user', content: 'Summarise it.' },
    ] as ResponseInputItem[];
    await server.openai().responses.create({ model: 'gpt-4o', input });
    const sent = openai.requests.at(-1)!.body.messages;
    expect(sent.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'user',
    ]);
    expect(sent[3].content).toContainEqual({ type: 'file', file: { file_data: pdf, filename: 'report.pdf' } });
    expect(sent[4]).toEqual({ role: 'user', content: 'Summarise it.' });
  });

  it('of one call, then another: the images come before the next assistant turn', async () => {
    const input = [
      { role: 'user', content: 'Look twice.' },
      { type: 'function_call', call_id: 'call_a', name: 'screenshot', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_a', output: [{ type: 'input_image', image_url: png }] },
      { type: 'function_call', call_id: 'call_b', name: 'screenshot', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_b', output: 'no change' },
    ] as ResponseInputItem[];
    await server.openai().responses.create({ model: 'gpt-4o', input });
    const sent = openai.requests.at(-1)!.body.messages;
    const roles = sent.map((message: { role: string }) => message.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'user', 'assistant', 'tool']);
    expect(sent[3].content).toContainEqual({ type: 'image_url', image_url: { url: png } });
  });

  it('an output part of another kind is still a 400 naming it', async () => {
    const input = [
      { type: 'function_call', call_id: 'call_1', name: 'look', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: [{ type: 'output_audio', data: 'x' }] },
    ] as unknown as ResponseInputItem[];
    const error = await server
      .openai()
      .responses.create({ model: 'gpt-4o', input })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400 });
    expect(String((error as Error).message)).toContain('input[1].output[0]');
  });
});

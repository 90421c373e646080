import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Messages API tool results holding images and documents (Claude Code's Read of an image or a PDF). Chat's `tool`
 * messages carry text only, so the text stays there and the images and documents follow in the user message after
 * the tool messages, with a warning; Claude gets them in the same user turn, after the tool_result blocks.
 */
const openai = await useFakeOpenAIServer();
const anthropic = await startFakeAnthropicServer();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    mock: false,
    gateway: {
      env: {},
      retry: { maxRetries: 0 },
      providers: {
        openai: { apiKey: 'sk-upstream', baseURL: openai.url },
        anthropic: { apiKey: 'sk-ant-upstream', baseURL: anthropic.url },
      },
    },
  });
});
afterAll(async () => {
  await Promise.all([server.stop(), anthropic.close()]);
});

const client = () => new Anthropic({ baseURL: server.url, apiKey: server.key, maxRetries: 0 });
type Warned = Anthropic.Message & { switchyard: { warnings: Array<{ code: string; param?: string }> } };
const data = 'iVBORw0KGgo=';
const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data } } as const;
const pdf = {
  type: 'document',
  source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQ=' },
} as const;

/** Claude Code's Read of two files, answered with what each holds, then `after` in the same user turn. */
const readTurn = (model: string, after: Anthropic.ContentBlockParam[] = []): Anthropic.MessageCreateParams => ({
  model,
  max_tokens: 1_000,
  messages: [
    { role: 'user', content: 'What do shot.png and spec.pdf show?' },
    {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'shot.png' } },
        { type: 'tool_use', id: 'toolu_2', name: 'Read', input: { file_path: 'spec.pdf' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: [image] },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'PDF, 1 page' }, pdf] },
        ...after,
      ],
    },
  ],
});

describe('a tool result with an image or a document', () => {
  it('reaches an OpenAI model as tool text, then the image and the PDF in one user message, warned', async () => {
    const after: Anthropic.ContentBlockParam[] = [{ type: 'text', text: 'Be brief.' }];
    const message = (await client().messages.create(readTurn('gpt-4o', after) as never)) as Warned;
    const sent = openai.requests.at(-1)!.body.messages;
    expect(sent.map((entry: { role: string }) => entry.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(sent[2]).toMatchObject({ role: 'tool', tool_call_id: 'toolu_1', content: expect.stringMatching(/follow/) });
    expect(sent[3]).toEqual({ role: 'tool', tool_call_id: 'toolu_2', content: 'PDF, 1 page' });
    expect(sent[4].content).toEqual([
      { type: 'text', text: expect.stringContaining('toolu_1') },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } },
      { type: 'text', text: expect.stringContaining('toolu_2') },
      { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQ=' } },
      { type: 'text', text: 'Be brief.' },
    ]);
    const moved = message.switchyard.warnings.filter((warning) => warning.code === 'converted_parameter');
    expect(moved.map((warning) => warning.param)).toEqual([
      'messages[2].content[0].content',
      'messages[2].content[1].content',
    ]);
  });

  it('reaches Claude in one user turn: the tool_result blocks first, then the image and the document', async () => {
    anthropic.enqueue({ content: [{ type: 'text', text: 'A login screen and a spec.' }] });
    const message = await client().messages.create(readTurn('claude-sonnet-4-5') as never);
    expect(message.content).toEqual([{ type: 'text', text: 'A login screen and a spec.', citations: null }]);
    const sent = anthropic.requests.at(-1)!.body.messages;
    expect(sent).toHaveLength(3);
    expect(sent[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: expect.stringMatching(/follow/) },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: 'PDF, 1 page' },
        { type: 'text', text: expect.stringContaining('toolu_1') },
        image,
        { type: 'text', text: expect.stringContaining('toolu_2') },
        pdf,
      ],
    });
  });

  it('by file id is still a 400 naming the block', async () => {
    const turn = readTurn('gpt-4o') as Anthropic.MessageCreateParamsNonStreaming;
    const byId = { type: 'image', source: { type: 'file', file_id: 'file_1' } };
    (turn.messages[2]!.content as Anthropic.ToolResultBlockParam[])[0]!.content = [byId as never];
    const error = await client()
      .messages.create(turn)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400 });
    expect(String((error as Error).message)).toContain('messages[2].content[0].content[0]');
  });
});

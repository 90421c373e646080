import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Claude Code pointed at the gateway with a model that does not reason: it sends `thinking: { type: "adaptive" }`
 * on every turn, which asks for reasoning only when useful, so such a model answers without it (with a warning).
 */
let server: TestServer;
let strict: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  strict = await startTestServer({ gateway: { strict: true } });
});
afterAll(async () => {
  await Promise.all([server.stop(), strict.stop()]);
});

const client = (test: TestServer) =>
  new Anthropic({
    baseURL: test.url,
    apiKey: test.key,
    maxRetries: 0,
    defaultHeaders: { 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14' },
  });

/** A turn as Claude Code sends it: system blocks, its tools, adaptive thinking, the session in metadata. */
function claudeCodeTurn(model: string): Anthropic.MessageCreateParamsStreaming {
  return {
    model,
    max_tokens: 8_192,
    stream: true,
    thinking: { type: 'adaptive' },
    metadata: { user_id: 'user_5f1c0a_account__session_0d6a4b7e-2f1e-4c55-9a43-5b1b1fd8b2aa' },
    system: [
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
      { type: 'text', text: 'You are an interactive CLI tool.', cache_control: { type: 'ephemeral' } },
    ],
    tools: [
      {
        name: 'Bash',
        description: 'Executes a given bash command.',
        input_schema: {
          type: 'object',
          properties: { command: { type: 'string' }, timeout: { type: 'number' } },
          required: ['command'],
          additionalProperties: false,
          $schema: 'http://json-schema.org/draft-07/schema#',
        },
      },
      {
        name: 'Read',
        description: 'Reads a file from the local filesystem.',
        input_schema: {
          type: 'object',
          properties: { file_path: { type: 'string' } },
          required: ['file_path'],
          additionalProperties: false,
          $schema: 'http://json-schema.org/draft-07/schema#',
        },
      },
    ],
    messages: [
      {
        role: 'user',
        content: [{ type: 'text', text: 'What is in README.md?', cache_control: { type: 'ephemeral' } }],
      },
    ],
  };
}

describe("Claude Code's requests on a model that does not reason", () => {
  for (const model of ['gpt-4o-latest', 'llama-3.3-70b-instruct']) {
    it(`streams an answer from ${model}, adaptive thinking dropped`, async () => {
      const stream = client(server).messages.stream(claudeCodeTurn(model));
      const message = await stream.finalMessage();
      expect(message.stop_reason).toMatch(/end_turn|tool_use/);
      expect(message.content.length).toBeGreaterThan(0);
      expect(message.content.some((block) => block.type === 'thinking')).toBe(false);
    });
  }

  it('names the dropped thinking in the warnings', async () => {
    const { stream: _, ...turn } = claudeCodeTurn('gpt-4o-latest');
    const message = (await client(server).messages.create(turn)) as Anthropic.Message & {
      switchyard: { warnings: Array<{ code: string; param?: string }> };
    };
    expect(message.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'unsupported_parameter', param: 'thinking' }),
    );
  });

  it('keeps adaptive thinking for a model that reasons', async () => {
    const { stream: _, ...turn } = claudeCodeTurn('claude-haiku-4-5');
    const message = (await client(server).messages.create(turn)) as Anthropic.Message & {
      switchyard: { warnings: Array<{ param?: string }> };
    };
    expect(message.switchyard.warnings.filter((warning) => warning.param === 'thinking')).toEqual([]);
  });

  it('is a 400 under strict, as any dropped parameter', async () => {
    const error = await client(strict)
      .messages.create(claudeCodeTurn('gpt-4o-latest'))
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.message).toContain('thinking');
  });

  it('still refuses an explicit thinking budget on such a model', async () => {
    const { stream: _, ...turn } = claudeCodeTurn('gpt-4o-latest');
    const error = await client(server)
      .messages.create({ ...turn, thinking: { type: 'enabled', budget_tokens: 2_000 } })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.message).toContain('does not reason');
  });
});

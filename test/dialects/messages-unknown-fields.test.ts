import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockProvider } from '../../src/testing/index.ts';
import { readAgentFixtures } from '../agents/agent-fixtures.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * A Messages body's top-level fields the gateway does not take (Anthropic's own it cannot honour: MCP servers, a
 * container, automatic caching, the inference region) are dropped with a warning each, an error under strict, as
 * the Responses API's are: never ignored unsaid. What Claude Code sends on every turn draws none it has not drawn.
 */
const scripted = new MockProvider();
let server: TestServer;
let strict: TestServer;
beforeAll(async () => {
  server = await startTestServer({ mock: scripted });
  strict = await startTestServer({ gateway: { strict: true } });
});
afterAll(async () => {
  await Promise.all([server.stop(), strict.stop()]);
});

const client = (test: TestServer) => new Anthropic({ baseURL: test.url, apiKey: test.key, maxRetries: 0 });
type Warned = Anthropic.Message & { switchyard: { warnings: Array<{ code: string; param?: string }> } };
const dropped = (message: Warned) =>
  message.switchyard.warnings.filter((warning) => warning.code === 'unsupported_parameter').map((w) => w.param);

const body = {
  model: 'claude-haiku-4-5',
  max_tokens: 100,
  messages: [{ role: 'user', content: 'hi' }],
  mcp_servers: [{ type: 'url', url: 'https://mcp.example.com/sse', name: 'example' }],
  container: 'container_1',
  cache_control: { type: 'ephemeral' },
  inference_geo: 'us',
  speed: null,
} as unknown as Anthropic.MessageCreateParamsNonStreaming;

describe('a Messages body’s other fields', () => {
  it('are each dropped with a warning, and not sent', async () => {
    const message = (await client(server).messages.create(body)) as Warned;
    expect(dropped(message)).toEqual(['mcp_servers', 'container', 'cache_control', 'inference_geo']);
    const sent = scripted.calls.at(-1)!.body;
    for (const field of ['mcp_servers', 'container', 'cache_control', 'inference_geo'])
      expect(sent).not.toHaveProperty(field);
  });

  it('are an error under strict', async () => {
    const error = await client(strict)
      .messages.create(body)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((error as Error).message)).toContain('mcp_servers');
  });

  it('the fields it takes draw none, and those it drops knowingly draw one warning each', async () => {
    const message = (await client(server).messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0.2,
      stop_sequences: ['END'],
      metadata: { user_id: 'u1' },
      top_k: 5,
      context_management: { edits: [] },
    } as Anthropic.MessageCreateParamsNonStreaming)) as Warned;
    expect(dropped(message)).toEqual(['top_k', 'context_management']);
  });

  it('Claude Code’s turns draw only the warning of context_management, which it sends on every turn', async () => {
    const turns = readAgentFixtures().filter((fixture) => fixture.agent === 'claude-code');
    expect(turns.length).toBeGreaterThan(0);
    for (const turn of turns) {
      const { stream: _stream, ...request } = turn.body;
      const message = (await client(server).messages.create(
        { ...request, model: 'claude-sonnet-4-5' } as unknown as Anthropic.MessageCreateParamsNonStreaming,
        { timeout: 60_000 },
      )) as Warned;
      expect(dropped(message), turn.name).toEqual(['context_management']);
    }
  });
});

describe('the older beta output_format', () => {
  it('asks for the same structured output as output_config.format', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const message = (await client(server).messages.create({
      model: 'gpt-4o-latest',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'A city, as JSON.' }],
      output_format: { type: 'json_schema', schema },
    } as unknown as Anthropic.MessageCreateParamsNonStreaming)) as Warned;
    expect(dropped(message)).toEqual([]);
    expect(scripted.calls.at(-1)!.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema, strict: true },
    });
  });
});

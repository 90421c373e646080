import Anthropic from '@anthropic-ai/sdk';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockProvider } from '../src/testing/index.ts';
import { startTestServer, type TestServer } from './server/start-test-server.ts';

/**
 * The simulator gives reasoning as the provider it stands for does, so an agent tested on it keeps and sends back
 * what production sends: Claude's thinking signed (`signature_delta` when streamed), Gemini's thoughts with a
 * signature, both as a Responses reasoning item's `encrypted_content`; OpenAI's reasoning hidden, as its chat API
 * hides it, and counted in usage.
 */
const simulator = new MockProvider();
let test: TestServer;
let claude: Anthropic;
beforeAll(async () => {
  test = await startTestServer({ mock: simulator });
  claude = new Anthropic({ baseURL: test.url, apiKey: test.key, maxRetries: 0 });
});
afterAll(() => test.stop());

const thinking = {
  model: 'claude-haiku-4-5',
  max_tokens: 4_000,
  thinking: { type: 'enabled', budget_tokens: 1_024 },
  messages: [{ role: 'user', content: 'Plan a trip.' }],
} satisfies Anthropic.MessageCreateParamsNonStreaming;

describe('Claude on the simulator, through the Messages API', () => {
  it('signs its thinking, streamed with a signature_delta, and takes it back on the next turn', async () => {
    const message = await claude.messages.create(thinking);
    const block = message.content[0] as Anthropic.ThinkingBlock;
    expect(block.type).toBe('thinking');
    expect(block.signature).toMatch(/^[A-Za-z0-9+/]{40,}={0,2}$/);

    const stream = claude.messages.stream(thinking);
    const deltas: string[] = [];
    stream.on('streamEvent', (event) => event.type === 'content_block_delta' && deltas.push(event.delta.type));
    const streamed = await stream.finalMessage();
    expect(deltas).toContain('signature_delta');
    expect(deltas.indexOf('signature_delta')).toBeGreaterThan(deltas.lastIndexOf('thinking_delta'));
    expect(streamed.content[0]).toEqual(block);

    await claude.messages.create({
      ...thinking,
      messages: [
        ...thinking.messages,
        { role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] },
        { role: 'user', content: 'Go on.' },
      ],
    });
    expect(simulator.calls.at(-1)!.body.messages[1]).toMatchObject({
      reasoning_details: [{ type: 'reasoning.text', format: 'anthropic', signature: block.signature }],
    });
  });
});

describe('reasoning items of the Responses API on the simulator', () => {
  for (const model of ['claude-haiku-4-5', 'gemini-2.5-flash']) {
    it(`carry ${model}'s reasoning state as encrypted_content, a summary only when asked`, async () => {
      const client = test.openai();
      const asked = { model, input: 'Plan a trip.', reasoning: { effort: 'low' as const } };
      const plain = await client.responses.create(asked);
      const item = plain.output.find((output) => output.type === 'reasoning')!;
      expect(item.encrypted_content).toMatch(/^switchyard\.v1\./);
      expect(item.summary).toEqual([]);
      const summarised = await client.responses.create({ ...asked, reasoning: { effort: 'low', summary: 'auto' } });
      expect(summarised.output.find((output) => output.type === 'reasoning')!.summary).toHaveLength(1);

      const input: ResponseInputItem[] = [
        { role: 'user', content: 'Plan a trip.' },
        ...(plain.output as ResponseInputItem[]),
        { role: 'user', content: 'Go on.' },
      ];
      await client.responses.create({ ...asked, input });
      const sent = simulator.calls.at(-1)!.body.messages[1] as { reasoning_details?: Array<{ signature?: string }> };
      expect(sent.reasoning_details?.[0]?.signature).toEqual(expect.any(String));
    });
  }
});

describe('OpenAI reasoning models on the simulator', () => {
  it('give no reasoning text, as their chat API, and count the reasoning tokens', async () => {
    const completion = await test.openai().chat.completions.create({
      model: 'o3',
      messages: [{ role: 'user', content: 'Plan a trip.' }],
      reasoning_effort: 'high',
    });
    expect(completion.choices[0]!.message).not.toHaveProperty('reasoning_content');
    expect(completion.usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(0);
    const response = await test
      .openai()
      .responses.create({ model: 'o3', input: 'Plan a trip.', reasoning: { effort: 'high' } });
    expect(response.output.map((item) => item.type)).toEqual(['message']);
  });
});

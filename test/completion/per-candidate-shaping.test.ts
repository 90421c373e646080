import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.ts';
import type { Attempt } from '../../src/types.ts';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { type FakeGeminiServer, startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';

/**
 * Every candidate is called as faithfully as its own model allows: a fallback chain OpenAI → Anthropic → Gemini with
 * reasoning, temperature, a strict schema, parallel_tool_calls and logprobs. Each fake receives what its model can
 * take, and each attempt lists the warnings of the request it sent.
 */
let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let gemini: FakeGeminiServer;
let gateway: Gateway;
beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([
    startFakeOpenAIServer(),
    startFakeAnthropicServer(),
    startFakeGeminiServer(),
  ]);
  gateway = createGateway({
    providers: {
      openai: { apiKey: 'sk-openai', baseURL: openai.url },
      anthropic: { apiKey: 'sk-ant', baseURL: anthropic.url },
      google: { apiKey: 'gm-key', baseURL: gemini.url },
    },
    retry: { maxRetries: 0 },
  });
});
afterAll(async () => {
  await gateway.close();
  await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
});

const schema = {
  type: 'object',
  properties: { answer: { type: 'string' }, confidence: { type: 'number' } },
  required: ['answer', 'confidence'],
  additionalProperties: false,
};
const lookup = {
  type: 'function' as const,
  function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
};

function codes(attempt: Attempt | undefined): string[] {
  return (attempt?.warnings ?? []).map((warning) => `${warning.code}:${warning.param ?? ''}`).sort();
}

describe('a fallback chain shaped per candidate', () => {
  it('sends each model what it takes, with reasoning converted by its own limits, and warns per attempt', async () => {
    openai.enqueue({ error: { status: 503, message: 'overloaded' } });
    anthropic.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
    gemini.enqueue({ text: '{"answer":"yes","confidence":0.9}' });

    const response = await gateway.createCompletion({
      model: 'openai/gpt-5-mini',
      fallbacks: ['anthropic/claude-sonnet-4-5', 'google/gemini-2.5-flash'],
      messages: [{ role: 'user', content: 'Is it?' }],
      reasoning: { effort: 'high' },
      temperature: 0.3,
      logprobs: true,
      tools: [lookup],
      parallel_tool_calls: false,
      response_format: { type: 'json_schema', json_schema: { name: 'verdict', schema, strict: true } },
    });
    expect(response.choices[0]!.message.parsed).toEqual({ answer: 'yes', confidence: 0.9 });
    expect(response.switchyard.provider).toBe('google');

    // OpenAI: gpt-5-mini takes no temperature (dropped), high effort, the strict schema, parallel_tool_calls.
    const sentToOpenAI = openai.requests.at(-1)!.body;
    expect(sentToOpenAI.temperature).toBeUndefined();
    expect(sentToOpenAI.reasoning_effort).toBe('high');
    expect(sentToOpenAI.response_format.json_schema.strict).toBe(true);
    expect(sentToOpenAI.parallel_tool_calls).toBe(false);
    expect(sentToOpenAI.logprobs).toBe(true);

    // Anthropic: thinking at 80 % of Claude Sonnet 4.5's own 64,000 output tokens; no logprobs.
    const sentToAnthropic = anthropic.requests.at(-1)!.body;
    expect(sentToAnthropic.thinking).toMatchObject({ type: 'enabled', budget_tokens: 51_200 });
    expect(sentToAnthropic.logprobs).toBeUndefined();

    // Gemini: a thinking budget (capped at its 24,576), the temperature gpt-5-mini could not take, the schema.
    const sentToGemini = gemini.requests.at(-1)!.body;
    expect(sentToGemini.generationConfig.thinkingConfig.thinkingBudget).toBe(24_576);
    expect(sentToGemini.generationConfig.temperature).toBe(0.3);
    expect(sentToGemini.generationConfig.responseMimeType).toBe('application/json');

    const [toOpenAI, toAnthropic, toGemini] = response.switchyard.attempts;
    expect(toOpenAI!.outcome).not.toBe('ok');
    expect(codes(toOpenAI)).toContain('unsupported_parameter:temperature');
    expect(codes(toAnthropic)).toContain('unsupported_parameter:logprobs');
    expect(codes(toAnthropic)).not.toContain('unsupported_parameter:temperature');
    expect(codes(toGemini)).toEqual(
      expect.arrayContaining([
        'converted_parameter:reasoning',
        'unsupported_parameter:logprobs',
        'unsupported_parameter:parallel_tool_calls',
      ]),
    );
    expect(codes(toGemini)).not.toContain('unsupported_parameter:temperature');
    // The answer's warnings are the answering attempt's (and the call's own), never another attempt's.
    const answered = response.switchyard.warnings.map((warning) => `${warning.code}:${warning.param ?? ''}`);
    expect(answered).not.toContain('unsupported_parameter:temperature');
    expect(answered).toEqual(expect.arrayContaining(codes(toGemini)));
  });

  it('a correction goes to the candidate whose answer it corrects', async () => {
    openai.enqueue({ error: { status: 503, message: 'overloaded' } });
    gemini.enqueue({ text: '{"answer":"yes"}' }, { text: '{"answer":"yes","confidence":1}' });
    const openaiBefore = openai.requests.length;
    const response = await gateway.createCompletion({
      model: 'openai/gpt-4o-mini',
      fallbacks: ['google/gemini-2.5-flash'],
      messages: [{ role: 'user', content: 'Is it?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'verdict', schema } },
    });
    expect(response.choices[0]!.message.parsed).toEqual({ answer: 'yes', confidence: 1 });
    expect(response.switchyard.provider).toBe('google');
    // OpenAI was asked once (the 503), never for the correction of Gemini's answer.
    expect(openai.requests.length - openaiBefore).toBe(1);
    const outcomes = response.switchyard.attempts.map((attempt) => `${attempt.provider}:${attempt.outcome}`);
    expect(outcomes).toEqual(['openai:server_error', 'google:ok', 'google:ok']);
  });
});

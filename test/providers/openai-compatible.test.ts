import { describe, expect, it } from 'vitest';
import { type CompletionChunk, createGateway } from '../../src/index.ts';
import { gatewayAgainst, useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { testCatalog } from '../helpers/test-catalog.ts';

const server = await useFakeOpenAIServer();

const hello = [{ role: 'user' as const, content: 'Think, then answer' }];

describe('OpenAI-compatible family', () => {
  it('Groq: renames its `reasoning` field to reasoning_content and sends the effort', async () => {
    server.enqueue({
      content: '42',
      reasoning: { field: 'reasoning', text: 'Six times seven.' },
      usage: { prompt_tokens: 5, completion_tokens: 9, reasoning_tokens: 6 },
    });
    const gateway = gatewayAgainst(server.url);
    const response = await gateway.createCompletion({
      model: 'gpt-oss-120b',
      messages: hello,
      reasoning_effort: 'high',
      max_tokens: 100,
    });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer test-key-groq');
    expect(server.requests[0]!.body).toEqual({
      model: 'openai/gpt-oss-120b',
      messages: hello,
      max_completion_tokens: 100,
      reasoning_effort: 'high',
    });
    const message = response.choices[0]!.message as unknown as Record<string, unknown>;
    expect(message.reasoning_content).toBe('Six times seven.');
    expect(message).not.toHaveProperty('reasoning');
    expect(response.usage?.completion_tokens_details?.reasoning_tokens).toBe(6);
  });

  it('Groq: streams reasoning as delta.reasoning_content before the content', async () => {
    server.enqueue({ content: 'Answer.', reasoning: { field: 'reasoning', text: 'Thinking hard.' } });
    const gateway = gatewayAgainst(server.url);
    const kinds: string[] = [];
    for await (const chunk of await gateway.createCompletion({
      model: 'gpt-oss-120b',
      messages: hello,
      stream: true,
    })) {
      const delta = (chunk as CompletionChunk).choices[0]?.delta ?? {};
      if (delta.reasoning_content) kinds.push('reasoning');
      if (delta.content) kinds.push('content');
      expect(delta).not.toHaveProperty('reasoning');
    }
    expect(kinds.indexOf('content')).toBeGreaterThan(kinds.lastIndexOf('reasoning'));
  });

  it('DeepSeek: keeps max_tokens, reads reasoning_content, warns that the model takes no reasoning knob', async () => {
    server.enqueue({ content: 'Done', reasoning: { field: 'reasoning_content', text: 'Step 1…' } });
    const gateway = gatewayAgainst(server.url);
    const response = await gateway.createCompletion({
      model: 'deepseek-reasoner-v3.2',
      messages: hello,
      max_completion_tokens: 300,
      reasoning: { effort: 'low' },
    });
    expect(server.requests[0]!.body).toEqual({ model: 'deepseek-reasoner', messages: hello, max_tokens: 300 });
    expect(response.choices[0]!.message.reasoning_content).toBe('Step 1…');
    expect(response.switchyard.warnings).toEqual([expect.objectContaining({ code: 'reasoning_not_configurable' })]);
  });

  it('a tool loop keeps DeepSeek reasoning_content (it needs it back) and strips it for the others', async () => {
    server.enqueue(
      {
        content: null,
        reasoning: { field: 'reasoning_content', text: 'I should look it up.' },
        tool_calls: [{ id: 'call_1', name: 'lookup', arguments: '{}' }],
      },
      { content: 'Found it.' },
      { content: 'Found it.' },
    );
    const gateway = gatewayAgainst(server.url);
    const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];
    const first = await gateway.createCompletion({ model: 'deepseek-reasoner-v3.2', messages: hello, tools });
    const assistant = {
      ...first.choices[0]!.message,
      reasoning_details: [{ type: 'reasoning.text' as const, format: 'anthropic', text: 'x', signature: 's' }],
    };
    const history = [...hello, assistant, { role: 'tool' as const, tool_call_id: 'call_1', content: '42' }] as never[];
    await gateway.createCompletion({ model: 'deepseek-reasoner-v3.2', messages: history, tools });
    await gateway.createCompletion({ model: 'groq/gpt-oss-120b', messages: history, tools });
    const [, toDeepSeek, toGroq] = server.requests.map((request) => request.body.messages[1]);
    expect(toDeepSeek).toMatchObject({ role: 'assistant', reasoning_content: 'I should look it up.' });
    expect(toDeepSeek).not.toHaveProperty('reasoning_details');
    expect(toGroq).not.toHaveProperty('reasoning_content');
    expect(toGroq).not.toHaveProperty('reasoning_details');
    expect(toGroq.tool_calls).toEqual(first.choices[0]!.message.tool_calls);
  });

  it('Mistral: seed as random_seed, tool-call ids of nine characters, logit_bias dropped', async () => {
    const gateway = gatewayAgainst(server.url);
    const response = await gateway.createCompletion({
      model: 'mistral-large-latest',
      seed: 7,
      logit_bias: { '50256': -100 },
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_abcdefghijklmnop', type: 'function', function: { name: 'weather', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_abcdefghijklmnop', content: 'sunny' },
      ],
    });
    const body = server.requests[0]!.body;
    expect(body.random_seed).toBe(7);
    expect(body).not.toHaveProperty('seed');
    expect(body).not.toHaveProperty('logit_bias');
    const id = body.messages[1].tool_calls[0].id;
    expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(body.messages[2].tool_call_id).toBe(id);
    expect(response.switchyard.warnings).toEqual([
      expect.objectContaining({ code: 'unsupported_parameter', param: 'logit_bias' }),
    ]);
  });

  it('Ollama: needs no key; OLLAMA_BASE_URL points it at the server', async () => {
    const gateway = createGateway({ catalog: testCatalog, env: { OLLAMA_BASE_URL: server.url } });
    const response = await gateway.createCompletion({ model: 'ollama/llama-3.3-70b-instruct', messages: hello });
    expect(response.switchyard).toMatchObject({ provider: 'ollama', provider_model: 'llama3.3:70b' });
    expect(server.requests[0]!.body.model).toBe('llama3.3:70b');
  });

  it('in strict mode, a parameter the provider would drop is an error', async () => {
    const gateway = gatewayAgainst(server.url, { strict: true });
    await expect(
      gateway.createCompletion({ model: 'together/gpt-oss-120b', messages: hello, store: true }),
    ).rejects.toMatchObject({
      name: 'UnsupportedParameterError',
      param: 'store',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('drops OpenAI-only parameters for other providers, with a warning each', async () => {
    const gateway = gatewayAgainst(server.url);
    const response = await gateway.createCompletion({
      model: 'together/gpt-oss-120b',
      messages: hello,
      store: true,
      service_tier: 'flex',
    });
    expect(server.requests[0]!.body).not.toHaveProperty('store');
    expect(server.requests[0]!.body).not.toHaveProperty('service_tier');
    expect(response.switchyard.warnings.map((warning) => warning.param).sort()).toEqual(['service_tier', 'store']);
  });
});

import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';

/**
 * A Responses body's fields the gateway does not take (a chat field sent by mistake, OpenAI's own it cannot honour,
 * Codex's `client_metadata`) are dropped with a warning each, an error under strict: never ignored unsaid.
 */
const body = {
  model: 'gpt-4o-mini',
  input: 'hi',
  max_tokens: 5,
  context_management: [{ type: 'compaction', compact_threshold: 1000 }],
  client_metadata: { session_id: 's1' },
};

describe('a Responses body’s other fields', () => {
  it('are each dropped with a warning', async () => {
    const mock = createMockProvider();
    const gateway = createGateway({ mock, env: {} });
    try {
      const response = await gateway.createResponse(body as never);
      const params = response.switchyard.warnings
        .filter((warning) => warning.code === 'unsupported_parameter')
        .map((warning) => warning.param);
      expect(params).toEqual(expect.arrayContaining(['max_tokens', 'context_management', 'client_metadata']));
      expect(mock.calls.at(-1)!.body).not.toHaveProperty('max_tokens');
      // The fields it takes draw none.
      const plain = await gateway.createResponse({ model: 'gpt-4o-mini', input: 'hi', temperature: 0.2, store: true });
      expect(plain.switchyard.warnings.filter((warning) => warning.code === 'unsupported_parameter')).toEqual([]);
    } finally {
      await gateway.close();
    }
  });

  it('are an error under strict', async () => {
    const gateway = createGateway({ mock: true, env: {}, strict: true });
    try {
      const error = await gateway.createResponse(body as never).catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ status: 400 });
    } finally {
      await gateway.close();
    }
  });
});

describe('an image in a developer message', () => {
  it('is dropped with a warning naming the part (chat’s system messages are text)', async () => {
    const gateway = createGateway({ mock: true, env: {} });
    try {
      const response = await gateway.createResponse({
        model: 'gpt-4o-mini',
        input: [
          {
            role: 'developer',
            content: [
              { type: 'input_text', text: 'Use this logo.' },
              { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
            ],
          },
          { role: 'user', content: 'hi' },
        ],
      });
      expect(response.switchyard.warnings).toContainEqual(
        expect.objectContaining({ code: 'unsupported_parameter', param: 'input[0].content[1]' }),
      );
    } finally {
      await gateway.close();
    }
  });
});

describe('allowed_tools naming a built-in tool', () => {
  it('leaves it out with a warning, keeping the functions, instead of a 400', async () => {
    const mock = createMockProvider();
    const gateway = createGateway({ mock, env: {} });
    try {
      const response = await gateway.createResponse({
        model: 'gpt-4o-mini',
        input: 'hi',
        tools: [{ type: 'function', name: 'look', parameters: { type: 'object', properties: {} }, strict: false }],
        tool_choice: {
          type: 'allowed_tools',
          mode: 'auto',
          tools: [{ type: 'function', name: 'look' }, { type: 'image_generation' }],
        },
      });
      expect(response.switchyard.warnings).toContainEqual(
        expect.objectContaining({ code: 'unsupported_parameter', param: 'tool_choice.tools[1]' }),
      );
      expect(mock.calls.at(-1)!.body.tool_choice).toEqual({
        type: 'allowed_tools',
        allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'look' } }] },
      });
    } finally {
      await gateway.close();
    }
  });
});

describe('a body of many unknown fields', () => {
  it('names the first 20, each cut short, and counts the rest; null and handled fields draw none', async () => {
    const gateway = createGateway({ mock: true, env: {} });
    try {
      const many = Object.fromEntries(Array.from({ length: 500 }, (_, at) => [`${at}${'x'.repeat(200)}`, 1]));
      const response = await gateway.createResponse({
        model: 'gpt-4o-mini',
        input: 'hi',
        background: false,
        conversation: null,
        client_metadata: null,
        ...many,
      } as never);
      const dropped = response.switchyard.warnings.filter((warning) => warning.code === 'unsupported_parameter');
      expect(dropped).toHaveLength(21);
      expect(Math.max(...dropped.map((warning) => warning.message.length))).toBeLessThan(200);
      expect(dropped.map((warning) => warning.param)).not.toContain('background');
    } finally {
      await gateway.close();
    }
  });
});

describe('allowed_tools naming only built-in tools', () => {
  const functions = [
    { type: 'function' as const, name: 'look', parameters: { type: 'object', properties: {} }, strict: false },
  ];
  it('allows no tool (auto), never every tool; required is a 400', async () => {
    const mock = createMockProvider();
    const gateway = createGateway({ mock, env: {} });
    try {
      const asked = (mode: 'auto' | 'required') =>
        gateway.createResponse({
          model: 'gpt-4o-mini',
          input: 'hi',
          tools: functions,
          tool_choice: { type: 'allowed_tools', mode, tools: [{ type: 'web_search' }] },
        } as never);
      await asked('auto');
      expect(mock.calls.at(-1)!.body.tool_choice).toBe('none');
      expect(await asked('required').catch((error: unknown) => error)).toMatchObject({ status: 400 });
      const untyped = await gateway
        .createResponse({
          model: 'gpt-4o-mini',
          input: 'hi',
          tools: functions,
          tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ name: 'look' }] },
        } as never)
        .catch((error: unknown) => error);
      expect(untyped).toMatchObject({ status: 400, param: 'tool_choice.tools[0].type' });
    } finally {
      await gateway.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import {
  DeploymentNotFoundError,
  type DeploymentStore,
  MemoryDeploymentStore,
  resolveDeployment,
} from '../../src/deployments/index.ts';
import { InvalidRequestError, SwitchyardError } from '../../src/errors.ts';
import type { CompletionRequest } from '../../src/types.ts';
import { makeDeployment } from './fixtures.ts';

const schema = {
  type: 'object' as const,
  properties: { answer: { type: 'string' } },
  required: ['answer'],
  additionalProperties: false,
};

const store = new MemoryDeploymentStore([
  makeDeployment(
    { number: 1 },
    { temperature: 0.2, max_tokens: 300, reasoning: { budget: 2_000 }, output_schema: { json_schema: schema } },
  ),
  makeDeployment({ agent_id: 'greeter', number: 1 }, { messages: [{ role: 'user', content: 'Hello!' }] }),
]);

/** The first rendered message's content, for a one-message prompt. */
async function render(content: string, input: unknown): Promise<unknown> {
  const one = new MemoryDeploymentStore([
    makeDeployment({ agent_id: 'tpl' }, { messages: [{ role: 'user', content }] }),
  ]);
  return (await resolveDeployment(one, 'tpl:production#1', { input })).messages[0]!.content;
}

describe('resolveDeployment', () => {
  it('returns the model, the rendered prompt, the settings, the response format and the agent', async () => {
    const resolved = await resolveDeployment(store, 'support:production#1', {
      input: { product: 'Switchyard', ticket: 'It broke.' },
      metadata: { agent_id: 'someone-else', trace_id: 't1' },
    });
    expect(resolved.model).toBe('gpt-4o-latest');
    expect(resolved.agentId).toBe('support');
    expect(resolved.deployment.id).toBe('support:production#1');
    expect(resolved.messages).toEqual([
      { role: 'system', content: 'You answer support tickets for Switchyard.' },
      { role: 'user', content: 'It broke.' },
    ]);
    expect(resolved.settings).toEqual({
      temperature: 0.2,
      max_tokens: 300,
      reasoning: { budget: 2_000 },
      response_format: { type: 'json_schema', json_schema: { name: 'support', schema } },
    });
    expect(resolved.outputSchema).toEqual(schema);
  });

  it("puts the caller's parameters over the stored ones", async () => {
    const resolved = await resolveDeployment(store, 'support:production#1', {
      input: { product: 'x', ticket: 'y' },
      temperature: 1,
      max_completion_tokens: 50,
      reasoning_effort: 'high',
      seed: 3,
      stream: true,
    });
    expect(resolved.settings).toEqual({
      temperature: 1,
      max_completion_tokens: 50,
      reasoning_effort: 'high',
      seed: 3,
      stream: true,
      response_format: { type: 'json_schema', json_schema: { name: 'support', schema } },
    });
  });

  it('lets a null remove a stored setting, and a response_format replace the stored schema', async () => {
    const response_format = { type: 'json_object' as const };
    const resolved = await resolveDeployment(store, 'support:production#1', {
      input: { product: 'x', ticket: 'y' },
      temperature: null,
      response_format,
    });
    expect(resolved.settings).toEqual({ max_tokens: 300, reasoning: { budget: 2_000 }, response_format });
    expect(resolved.outputSchema).toEqual(schema);
  });

  it('drops the stored tool_choice when the caller sends its own tools', async () => {
    const withTools = new MemoryDeploymentStore([
      makeDeployment(
        {},
        {
          tools: [{ type: 'function', function: { name: 'lookup' } }],
          tool_choice: { type: 'function', function: { name: 'lookup' } },
        },
      ),
    ]);
    const tools = [{ type: 'function' as const, function: { name: 'search' } }];
    const resolved = await resolveDeployment(withTools, 'support:production#1', {
      input: { product: 'x', ticket: 'y' },
      tools,
    });
    expect(resolved.settings).toEqual({ tools });
  });

  it("appends the caller's messages after the prompt, without rendering them", async () => {
    const resolved = await resolveDeployment(store, 'greeter:production#1', {
      messages: [{ role: 'user', content: 'Show me {{literally}} this.' }],
      input: { literally: 'X' },
    });
    expect(resolved.messages).toEqual([
      { role: 'user', content: 'Hello!' },
      { role: 'user', content: 'Show me {{literally}} this.' },
    ]);
    expect(resolved.settings).toEqual({});
  });

  it('takes a CompletionRequest as it is', async () => {
    const request: CompletionRequest = {
      model: 'switchyard/deployment/greeter:production#1',
      stream: true,
      metadata: { trace_id: 't' },
    };
    expect((await resolveDeployment(store, 'greeter:production#1', request)).settings).toEqual({ stream: true });
  });

  it('keeps a prompt without variables when no input is sent', async () => {
    expect((await resolveDeployment(store, 'greeter:production#1')).messages).toEqual([
      { role: 'user', content: 'Hello!' },
    ]);
  });

  it('needs messages when the deployment stores no prompt', async () => {
    const empty = new MemoryDeploymentStore([makeDeployment({}, { messages: [] })]);
    const error = await resolveDeployment(empty, 'support:production#1').catch((caught) => caught);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.param).toBe('messages');
    const resolved = await resolveDeployment(empty, 'support:production#1', {
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(resolved.messages).toHaveLength(1);
  });

  it('names the missing variable and the deployment', async () => {
    const error = await resolveDeployment(store, 'support:production#1', { input: { product: 'x' } }).catch(
      (caught) => caught,
    );
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.status).toBe(400);
    expect(error.code).toBe('missing_variable');
    expect(error.param).toBe('input.ticket');
    expect(error.message).toBe(
      'Deployment "support:production#1" messages[1] uses the variable {{ticket}}, which "input" does not provide.',
    );
    const none = await resolveDeployment(store, 'support:production#1').catch((caught) => caught);
    expect(none.param).toBe('input.product');
  });
});

describe('templates in a deployment prompt', () => {
  it.each([
    ['dotted paths', 'Dear {{user.name.first}},', { user: { name: { first: 'Ada' } } }, 'Dear Ada,'],
    [
      'objects and arrays as JSON',
      'Order {{order}} items {{items}}',
      { order: { id: 7 }, items: [1, 2] },
      'Order {"id":7} items [1,2]',
    ],
    ['numbers, booleans and null', '{{n}} {{b}} {{z}}', { n: 0, b: false, z: null }, '0 false null'],
    ['no HTML escaping', 'From {{who}}', { who: 'Tom & Jerry <tj@x.com> "hi"' }, 'From Tom & Jerry <tj@x.com> "hi"'],
    ['spaces inside the braces', '{{ name }}/{{  name}}/{{name  }}', { name: 'n' }, 'n/n/n'],
    [
      'a literal {{ without a name',
      'Use {{ }} or {{}} or {{#each}} or {{ 1x }} or {{',
      {},
      'Use {{ }} or {{}} or {{#each}} or {{ 1x }} or {{',
    ],
    ['values that look like variables are not rendered again', '{{a}}', { a: '{{b}}', b: 'no' }, '{{b}}'],
    ['an empty string', '[{{s}}]', { s: '' }, '[]'],
  ])('%s', async (_label, content, input, expected) => {
    expect(await render(content, input)).toBe(expected);
  });

  it('renders text parts and image URLs', async () => {
    const parts = new MemoryDeploymentStore([
      makeDeployment(
        { agent_id: 'vision' },
        {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Describe {{what}}' },
                { type: 'image_url', image_url: { url: '{{image_url}}' } },
              ],
            },
          ],
        },
      ),
    ]);
    const resolved = await resolveDeployment(parts, 'vision:production#1', {
      input: { what: 'this', image_url: 'https://x/y.png' },
    });
    expect(resolved.messages[0]!.content).toEqual([
      { type: 'text', text: 'Describe this' },
      { type: 'image_url', image_url: { url: 'https://x/y.png' } },
    ]);
  });

  it('names a missing dotted variable with its full path', async () => {
    const error = (await render('Hi {{user.name}}', { user: {} }).catch((caught) => caught)) as InvalidRequestError;
    expect(error.param).toBe('input.user.name');
    expect(error.message).toContain('{{user.name}}');
  });
});

describe('unknown deployments', () => {
  const many = new MemoryDeploymentStore([
    ...[1, 2, 3, 4, 5, 6, 7].map((number) => makeDeployment({ number })),
    makeDeployment({ agent_id: 'billing' }),
  ]);

  it('is a 404 listing up to five ids of the same agent, newest first', async () => {
    const error = await resolveDeployment(many, 'support:production#9').catch((caught) => caught);
    expect(error).toBeInstanceOf(DeploymentNotFoundError);
    expect(error).toBeInstanceOf(SwitchyardError);
    expect(error.toJSON().error).toEqual({
      message:
        'No deployment has the id "support:production#9". Deployments of the same agent: "support:production#7", ' +
        '"support:production#6", "support:production#5", "support:production#4", "support:production#3".',
      type: 'invalid_request_error',
      param: 'model',
      code: 'deployment_not_found',
    });
    expect(error.status).toBe(404);
    expect(error.knownIds).toHaveLength(5);
  });

  it('guesses the agent of an id of another shape', async () => {
    const error = await resolveDeployment(many, 'billing@prod#3').catch((caught) => caught);
    expect(error.knownIds).toEqual(['billing:production#1']);
  });

  it('lists nothing for an unknown agent, or when the store cannot list', async () => {
    expect((await resolveDeployment(many, 'nobody:dev#1').catch((caught) => caught)).message).toBe(
      'No deployment has the id "nobody:dev#1".',
    );
    const failing: DeploymentStore = {
      get: async () => undefined,
      list: async () => Promise.reject(new Error('down')),
    };
    const error = await resolveDeployment(failing, 'support:production#1').catch((caught) => caught);
    expect(error).toBeInstanceOf(DeploymentNotFoundError);
    expect(error.knownIds).toEqual([]);
  });
});

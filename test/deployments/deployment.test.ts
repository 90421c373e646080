import { describe, expect, it } from 'vitest';
import {
  DeploymentConflictError,
  DeploymentStoreError,
  DeploymentValidationError,
  formatDeploymentId,
  MemoryDeploymentStore,
  parseDeploymentId,
  validateDeployment,
} from '../../src/deployments/index.ts';
import { makeDeployment } from './fixtures.ts';

describe('deployment ids', () => {
  it('formats the recommended shape and parses it back', () => {
    const id = formatDeploymentId({ agent_id: 'support', environment: 'staging', number: 12 });
    expect(id).toBe('support:staging#12');
    expect(parseDeploymentId(id)).toEqual({ agent_id: 'support', environment: 'staging', number: 12 });
  });

  it('keeps everything before the last ":<environment>#" as the agent', () => {
    expect(parseDeploymentId('team:support:dev#0')).toEqual({
      agent_id: 'team:support',
      environment: 'dev',
      number: 0,
    });
  });

  it.each([
    'support:prod#3',
    'support@production#3',
    'support:production#03',
    'support:production#',
    'support:production',
    'support:production#3 ',
    ':production#3',
    'my agent:dev#1',
    'support:production#99999999999999999999',
  ])('does not guess at the shape %j', (id) => {
    expect(parseDeploymentId(id)).toBeUndefined();
  });

  it('accepts ids of other shapes, whose record fields are authoritative', async () => {
    const odd = makeDeployment({ id: 'support@prod#3', environment: 'production', number: 3 });
    const store = new MemoryDeploymentStore([odd]);
    expect(await store.get('support@prod#3')).toMatchObject({
      agent_id: 'support',
      environment: 'production',
      number: 3,
    });
  });

  it('rejects a recommended-shape id that contradicts the record', () => {
    const record = { ...makeDeployment(), id: 'billing:staging#1' };
    expect(() => validateDeployment(record, 'deployments/x.json')).toThrow(
      'deployments/x.json: id: "billing:staging#1" says agent_id "billing", but the record\'s agent_id is "support"',
    );
  });
});

describe('deployment validation', () => {
  const cases: Array<[string, (record: any) => void, string]> = [
    [
      'a bad role',
      (r) => (r.version.messages[0].role = 'robot'),
      'version.messages[0].role: Invalid discriminator value',
    ],
    [
      'content of the wrong type',
      (r) => (r.version.messages[1].content = 5),
      'version.messages[1].content: must be a string or an array of content parts',
    ],
    [
      'a bad content part',
      (r) => (r.version.messages[1].content = [{ type: 'text', text: 1 }]),
      'version.messages[1].content[0].text: Invalid input: expected string',
    ],
    ['an unknown field', (r) => (r.version.temprature = 1), 'version.temprature: unknown field'],
    ['an unknown top-level field', (r) => (r.owner = 'me'), 'src: owner: unknown field'],
    [
      'a missing model',
      (r) => delete r.version.model,
      'version.model: Invalid input: expected string, received undefined',
    ],
    ['an unknown environment', (r) => (r.environment = 'prod'), 'environment: Invalid option'],
    ['a fractional number', (r) => (r.number = 1.5), 'number: Invalid input: expected int'],
    ['a date that is not ISO', (r) => (r.created_at = 'yesterday'), 'created_at: must be an ISO 8601 date-time'],
    [
      'temperature out of range',
      (r) => (r.version.temperature = 3),
      'version.temperature: "temperature" must be a number from 0 to 2',
    ],
    [
      'reasoning with both knobs',
      (r) => (r.version.reasoning = { budget: 10, effort: 'low' }),
      'version.reasoning: reasoning takes either "budget" or "effort", not both',
    ],
    [
      'a schema whose root is not an object',
      (r) => (r.version.output_schema = { json_schema: { type: 'array' } }),
      'version.output_schema.json_schema.type: the root of the output schema',
    ],
    [
      'tool_choice naming a missing tool',
      (r) => (r.version.tool_choice = { type: 'function', function: { name: 'lookup' } }),
      'version.tool_choice: tool_choice names "lookup", which is not in "tools"',
    ],
    [
      'a tool message without tool_call_id',
      (r) => (r.version.messages[1] = { role: 'tool', content: 'x' }),
      'version.messages[1].tool_call_id',
    ],
    [
      'an agent id with a slash',
      (r) => ((r.agent_id = 'a/b'), (r.id = 'odd-id')),
      'agent_id: must not contain whitespace or "/"',
    ],
  ];

  it.each(cases)('names the source and field for %s', (_label, mutate, expected) => {
    const record = structuredClone(makeDeployment()) as any;
    mutate(record);
    const error = (() => {
      try {
        validateDeployment(record, 'src');
      } catch (caught) {
        return caught as DeploymentValidationError;
      }
      throw new Error('no error');
    })();
    expect(error).toBeInstanceOf(DeploymentValidationError);
    expect(error.message).toContain(expected);
    expect(error.message.startsWith('src: ')).toBe(true);
    expect(error.status).toBe(500);
    expect(error.code).toBe('invalid_deployment');
  });

  it('accepts the full set of settings', () => {
    const record = makeDeployment(
      {},
      {
        output_schema: {
          json_schema: {
            type: 'object',
            properties: { answer: { type: 'string' } },
            required: ['answer'],
            additionalProperties: false,
          },
        },
        temperature: 0.2,
        top_p: 0.9,
        max_tokens: 500,
        reasoning: { effort: 'low' },
        seed: 7,
        stop: ['END'],
        tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
        tool_choice: { type: 'function', function: { name: 'lookup' } },
      },
      { description: 'first cut', metadata: { owner: 'ops' } },
    );
    expect(validateDeployment(record, 'x')).toEqual(record);
  });
});

describe('MemoryDeploymentStore', () => {
  it('gets, lists per agent newest first, and returns undefined for unknown ids', async () => {
    const store = new MemoryDeploymentStore([
      makeDeployment({ number: 1 }),
      makeDeployment({ number: 2 }),
      makeDeployment({ agent_id: 'billing', number: 5 }),
    ]);
    expect((await store.get('support:production#2'))?.number).toBe(2);
    expect(await store.get('support:production#9')).toBeUndefined();
    expect((await store.list({ agent_id: 'support' })).map((d) => d.id)).toEqual([
      'support:production#2',
      'support:production#1',
    ]);
    expect(await store.list()).toHaveLength(3);
  });

  it('validates the initial array and rejects duplicate ids', () => {
    expect(() => new MemoryDeploymentStore([{ ...makeDeployment(), version: {} } as never])).toThrow(
      'memory[0]: version.model',
    );
    const duplicate = (() => {
      try {
        return new MemoryDeploymentStore([makeDeployment(), makeDeployment()]);
      } catch (caught) {
        return caught;
      }
    })();
    expect(duplicate).toBeInstanceOf(DeploymentStoreError);
    expect((duplicate as DeploymentStoreError).code).toBe('duplicate_deployment_id');
    expect((duplicate as Error).message).toContain(
      '"support:production#1" is defined twice: in memory[0] and in memory[1]',
    );
  });

  it('treats a stored version as immutable', async () => {
    const store = new MemoryDeploymentStore([makeDeployment()]);
    await store.put(structuredClone(makeDeployment())); // identical: a no-op
    const changed = makeDeployment({}, { temperature: 0.1 });
    const error = await store.put(changed).catch((caught) => caught);
    expect(error).toBeInstanceOf(DeploymentConflictError);
    expect(error.status).toBe(409);
    expect((await store.get('support:production#1'))?.version.temperature).toBeUndefined();
    await store.put(makeDeployment({ number: 2 }, { temperature: 0.1 }));
    expect(await store.list()).toHaveLength(2);
  });

  it('rejects an invalid put with a 400', async () => {
    const error = await new MemoryDeploymentStore().put({ ...makeDeployment(), number: -1 }).catch((caught) => caught);
    expect(error).toBeInstanceOf(DeploymentValidationError);
    expect(error.status).toBe(400);
    expect(error.message).toContain('put: number: Too small');
  });
});

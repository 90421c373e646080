import { describe, expect, it } from 'vitest';
import type { DeploymentVersion, JsonSchemaObject } from '../../src/deployments/deployment.ts';
import { compatibilityBreaks } from '../../src/deployments/deployment-compatibility.ts';

const prompt = (text: string): DeploymentVersion['messages'] => [{ role: 'user', content: text }];
const version = (text: string, schema?: Record<string, unknown>): DeploymentVersion => ({
  model: 'gpt-4o-latest',
  messages: prompt(text),
  ...(schema ? { output_schema: { json_schema: { type: 'object', ...schema } as JsonSchemaObject } } : {}),
});

const answer = {
  properties: {
    answer: { type: 'string' },
    category: { type: 'string', enum: ['bug', 'question'] },
    score: { type: 'number' },
    tags: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  },
  required: ['answer', 'category'],
};
/** `answer` with `change` applied to its properties and required list. */
function changed(change: { properties?: Record<string, unknown>; drop?: string; required?: string[] }) {
  const properties: Record<string, unknown> = { ...answer.properties, ...change.properties };
  if (change.drop) delete properties[change.drop];
  return { properties, required: change.required ?? answer.required };
}

describe('compatibilityBreaks: input', () => {
  it('a new variable is a break naming it; dropping or keeping variables is not', () => {
    const before = version('{{product}}: {{ticket}}');
    expect(compatibilityBreaks(before, version('{{ product }} {{ticket}} {{customer}}'))).toEqual([
      'input.customer: a new required variable ({{customer}}) that callers do not send',
    ]);
    expect(compatibilityBreaks(before, version('Ticket: {{ticket}}'))).toEqual([]);
    expect(compatibilityBreaks(before, version('{{ticket}} about {{product}}'))).toEqual([]);
  });

  it('a nested path is sent only when the old prompt used it or a deeper one', () => {
    expect(compatibilityBreaks(version('{{user.name.first}}'), version('{{user.name}}'))).toEqual([]);
    expect(compatibilityBreaks(version('{{user}}'), version('{{user.name}}'))).toEqual([
      'input.user.name: a new required variable ({{user.name}}) that callers do not send',
    ]);
  });

  it('reads variables in text parts and image URLs, and a prompt removed is a break', () => {
    const before = version('{{a}}');
    const parts: DeploymentVersion = {
      ...before,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '{{a}}' },
            { type: 'image_url', image_url: { url: 'https://example.com/{{image}}.png' } },
          ],
        },
      ],
    };
    expect(compatibilityBreaks(before, parts)).toEqual([
      'input.image: a new required variable ({{image}}) that callers do not send',
    ]);
    expect(compatibilityBreaks(before, { ...before, messages: [] })).toEqual([
      'messages: the new version stores no prompt, so callers would have to send messages',
    ]);
  });
});

describe('compatibilityBreaks: output', () => {
  const before = version('{{ticket}}', answer);

  it('an unchanged schema, an added field, a narrower type or enum, more required fields break nothing', () => {
    expect(compatibilityBreaks(before, version('{{ticket}}', answer))).toEqual([]);
    const wider = changed({
      properties: { extra: { type: 'string' }, score: { type: 'integer' }, category: { enum: ['bug'] } },
      required: ['answer', 'category', 'score'],
    });
    expect(compatibilityBreaks(before, version('{{ticket}}', wider))).toEqual([]);
    expect(compatibilityBreaks(version('{{ticket}}'), version('{{ticket}}', answer))).toEqual([]);
  });

  it('names a removed field, a changed type, a field no longer required, a new enum value', () => {
    expect(compatibilityBreaks(before, version('{{ticket}}', changed({ drop: 'score' })))).toEqual([
      'output.score: removed',
    ]);
    const retyped = changed({ properties: { score: { type: 'string' } } });
    expect(compatibilityBreaks(before, version('{{ticket}}', retyped))).toEqual([
      'output.score: its type changed from number to string',
    ]);
    const nullable = changed({ properties: { answer: { type: ['string', 'null'] } } });
    expect(compatibilityBreaks(before, version('{{ticket}}', nullable))).toEqual([
      'output.answer: its type changed from string to null | string',
    ]);
    expect(compatibilityBreaks(before, version('{{ticket}}', changed({ required: ['answer'] })))).toEqual([
      'output.category: no longer required (answers may leave it out)',
    ]);
    const more = changed({ properties: { category: { type: 'string', enum: ['bug', 'question', 'praise'] } } });
    expect(compatibilityBreaks(before, version('{{ticket}}', more))).toEqual(['output.category: may now be "praise"']);
  });

  it('walks array items and $refs, and losing the output schema is a break', () => {
    const items = changed({ properties: { tags: { type: 'array', items: { $ref: '#/$defs/tag' } } } });
    const tag = { type: 'object', properties: { name: { type: 'integer' } }, required: ['name'] };
    expect(compatibilityBreaks(before, version('{{ticket}}', { ...items, $defs: { tag } }))).toEqual([
      'output.tags[].name: its type changed from string to integer',
    ]);
    expect(compatibilityBreaks(before, version('{{ticket}}'))).toEqual([
      'output: the new version has no output schema, so answers are no longer structured',
    ]);
  });

  it('reads a stored response_format json_schema as the output schema', () => {
    const asFormat: DeploymentVersion = {
      model: 'gpt-4o-latest',
      messages: prompt('{{ticket}}'),
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object', ...changed({ drop: 'answer' }) } },
      },
    };
    expect(compatibilityBreaks(before, asFormat)).toEqual(['output.answer: removed']);
  });

  it('a changed anyOf is a break; a recursive schema is compared to a bounded depth', () => {
    const union = (types: string[]) => ({ properties: { v: { anyOf: types.map((type) => ({ type })) } } });
    expect(compatibilityBreaks(version('', union(['string'])), version('', union(['string', 'number'])))).toEqual([
      'output.v: its anyOf/oneOf/allOf schema changed (only an identical one can be checked)',
    ]);
    const tree = (leaf: string) => ({
      properties: { node: { $ref: '#/$defs/node' } },
      $defs: {
        node: { type: 'object', properties: { value: { type: leaf }, child: { $ref: '#/$defs/node' } } },
      },
    });
    const breaks = compatibilityBreaks(version('', tree('string')), version('', tree('number')));
    expect(breaks[0]).toBe('output.node.value: its type changed from string to number');
    expect(breaks.length).toBeGreaterThan(1);
    expect(breaks.length).toBeLessThanOrEqual(40);
  });
});

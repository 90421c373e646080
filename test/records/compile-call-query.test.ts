import { afterAll, describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../src/errors.ts';
import { type CallQuery, parseCallQuery } from '../../src/records/call-query.ts';
import { compileCallQuery } from '../../src/records/compile-call-query.ts';
import { SqliteSink } from '../../src/records/index.ts';
import { makeRecord } from './make-record.ts';

/**
 * The query compiler: what a caller writes is a parameter or refused, never SQL; a wrong part is a 400 naming its
 * path; the scope narrows every query and no filter widens it.
 */
const PAYLOADS = [`x' OR '1'='1`, `"; DROP TABLE calls; --`, `') OR 1=1 --`, `$1`, `?`, `\\' UNION SELECT record --`];
const STRING_FIELDS = [
  'agent_id',
  'workflow_name',
  'trace_id',
  'deployment_id',
  'requested_model',
  'model',
  'provider',
];

const sink = new SqliteSink(':memory:');
await sink.write([
  makeRecord({ agent_id: 'a', metadata: { api_key_id: 'key_a', team: 'red' } }),
  makeRecord({ agent_id: 'b', metadata: { api_key_id: 'key_b', team: 'blue' }, createdAt: Date.UTC(2026, 0, 16) }),
]);
afterAll(() => sink.close());

function queriesWith(payload: string): CallQuery[] {
  return [
    ...STRING_FIELDS.map((field) => ({ filter: { [field]: payload } })),
    ...STRING_FIELDS.map((field) => ({ filter: { [field]: [payload, 'a'] } })),
    { filter: { metadata: { [payload]: 'red' } } },
    { filter: { metadata: { team: payload } } },
  ];
}

describe('injection attempts stay parameters', () => {
  it.each(PAYLOADS)('%s', async (payload) => {
    const plain = queriesWith('plain');
    for (const [index, query] of queriesWith(payload).entries()) {
      for (const dialect of ['sqlite', 'postgres'] as const) {
        const { sql, params } = compileCallQuery(parseCallQuery(query), dialect);
        // The same statement as for a harmless value: the payload changed a parameter and nothing else.
        expect(sql, JSON.stringify(query)).toBe(compileCallQuery(parseCallQuery(plain[index]), dialect).sql);
        expect(JSON.stringify(params)).toContain(JSON.stringify(payload).slice(1, -1));
      }
      const { data } = await sink.queryCalls(query);
      // The list form also names 'a', which matches agent a only where the field is the agent.
      expect(
        data.every((row) => row.agent_id === 'a'),
        JSON.stringify(query),
      ).toBe(true);
    }
    expect((await sink.queryCalls({ aggregates: [{ fn: 'count' }] })).data).toEqual([{ count: 2 }]);
  });
});

describe('a wrong part is a 400 naming its path', () => {
  const cases: Array<[unknown, string]> = [
    [{ filter: { colour: 'blue' } }, 'filter.colour'],
    [{ select: 'record' }, 'select'],
    [{ filter: { agent_id: 7 } }, 'filter.agent_id'],
    [{ filter: { since: 'yesterday' } }, 'filter.since'],
    [{ filter: { agent_id: 'a\u0000' } }, 'filter.agent_id'],
    [{ filter: { metadata: { team: 1 } } }, 'filter.metadata.team'],
    [{ group_by: ['record'] }, 'group_by.0'],
    [{ group_by: ['agent_id', 'id; DROP TABLE calls'] }, 'group_by.1'],
    [{ aggregates: [{ fn: 'stddev', field: 'cost_usd' }] }, 'aggregates.0.fn'],
    [{ aggregates: [{ fn: 'sum', field: 'record' }] }, 'aggregates.0.field'],
    [{ aggregates: [{ fn: 'count' }, { fn: 'sum' }] }, 'aggregates.1.field'],
    [{ order_by: [{ field: 'cost_usd; DROP TABLE calls' }] }, 'order_by.0.field'],
    [{ group_by: ['agent_id'], order_by: [{ field: 'cost_usd' }] }, 'order_by.0.field'],
    [{ order_by: [{ field: 'id', direction: 'sideways' }] }, 'order_by.0.direction'],
    [{ limit: 1001 }, 'limit'],
    [{ limit: 0 }, 'limit'],
    [{ filter: { dialect: 'fax' } }, 'filter.dialect'],
  ];

  it.each(cases)('%j → %s', async (query, path) => {
    const error = await sink.queryCalls(query as CallQuery).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ status: 400, param: path });
    expect((error as Error).message).toContain(path);
  });
});

describe('the dialect filter', () => {
  it('takes each dialect a record can have, and names them all when it refuses one', () => {
    const dialects = ['chat', 'responses', 'messages', 'embeddings', 'images', 'speech', 'transcriptions'];
    for (const dialect of dialects)
      expect(parseCallQuery({ filter: { dialect } }).filter, dialect).toEqual({ dialect });
    expect(() => parseCallQuery({ filter: { dialect: 'fax' } })).toThrow(
      'Call query: filter.dialect: Invalid option: expected one of ' +
        '"chat"|"responses"|"messages"|"embeddings"|"images"|"speech"|"transcriptions"',
    );
  });
});

describe('the scope narrows every query', () => {
  it('a filter cannot widen it: another agent, another key, or a list naming both', async () => {
    const scope = { agent_ids: ['a'] };
    const count = async (query: CallQuery, options = { scope }) =>
      (await sink.queryCalls({ ...query, aggregates: [{ fn: 'count' }] }, options)).data[0]!.count;
    expect(await count({})).toBe(1);
    expect(await count({ filter: { agent_id: 'b' } })).toBe(0);
    expect(await count({ filter: { agent_id: ['a', 'b'] } })).toBe(1);
    expect(await count({ filter: { metadata: { api_key_id: 'key_b' } } })).toBe(0);
    expect(await count({}, { scope: { agent_ids: [] } } as never)).toBe(0);
    const own = { scope: { api_key_ids: ['key_b'] } } as never;
    expect(await count({}, own)).toBe(1);
    expect(await count({ filter: { agent_id: 'a' } }, own)).toBe(0);
  });

  it('rows carry columns, never contents', async () => {
    const { data } = await sink.queryCalls({}, { scope: { agent_ids: ['a'] } });
    expect(data).toHaveLength(1);
    expect(Object.keys(data[0]!)).not.toContain('record');
    expect(JSON.stringify(data)).not.toContain('secret');
  });
});

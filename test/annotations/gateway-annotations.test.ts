import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.ts';

/** `gateway.annotations` in-process on a mock gateway's recorded calls (memory): checked, the agent from the record. */
describe('gateway.annotations', () => {
  let gateway: Gateway;
  let callId: string;

  beforeAll(async () => {
    gateway = createGateway({ mock: true });
    const answer = await gateway.createCompletion({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      metadata: { agent_id: 'support' },
    });
    callId = answer.switchyard.call_id;
  });
  afterAll(() => gateway.close());

  it("stores text and a metric on a call with the call's agent; lists them by call, agent and metric", async () => {
    const [added] = await gateway.annotations.add({
      target: { call_id: callId },
      text: 'too long',
      metric: { name: 'rating', value: 2 },
      key_path: 'answer.summary',
    });
    expect(added).toMatchObject({
      target: { call_id: callId },
      agent_id: 'support',
      key_path: 'answer.summary',
      text: 'too long',
      metric: { name: 'rating', value: 2 },
      author: null,
    });
    expect(added!.id).toMatch(/^ann_/);
    for (const query of [{ call_id: callId }, { agent_id: 'support' }, { metric: 'rating' }])
      expect((await gateway.annotations.list(query)).data.map((row) => row.id)).toContain(added!.id);
    expect((await gateway.annotations.list({ agent_id: 'other' })).data).toEqual([]);
    expect((await gateway.annotations.list({ metric: 'accuracy' })).data).toEqual([]);
  });

  it('answers a missing call with 404 call_not_found naming its place, and stores none of the list', async () => {
    const list = [
      { target: { call_id: callId }, text: 'kept?' },
      { target: { call_id: 'nope' }, text: 'x' },
    ];
    await expect(gateway.annotations.add(list)).rejects.toMatchObject({
      status: 404,
      code: 'call_not_found',
      param: 'annotations.1.target.call_id',
    });
    const texts = (await gateway.annotations.list({ call_id: callId })).data.map((row) => row.text);
    expect(texts).not.toContain('kept?');
  });

  it('refuses what is not an annotation with a 400 naming the path', async () => {
    const cases: Array<[unknown, string]> = [
      [{ target: { call_id: callId } }, 'annotations.0.text'],
      [
        { target: { call_id: callId }, metric: { name: 'm', value: Number.POSITIVE_INFINITY } },
        'annotations.0.metric.value',
      ],
      [{ target: { call_id: callId }, metric: { name: 'm', value: Number.NaN } }, 'annotations.0.metric.value'],
      [{ target: { call_id: callId }, text: 'x'.repeat(10_001) }, 'annotations.0.text'],
      [{ target: { call_id: callId }, text: 'x', key_path: 'a..b' }, 'annotations.0.key_path'],
      [{ target: { call_id: callId }, text: 'x', agent_id: 'forged' }, 'annotations.0.agent_id'],
      [{ target: {}, text: 'x' }, 'annotations.0.target'],
      [Array.from({ length: 101 }, () => ({ target: { call_id: callId }, text: 'x' })), 'annotations'],
    ];
    for (const [input, param] of cases)
      await expect(gateway.annotations.add(input as never), param).rejects.toMatchObject({ status: 400, param });
    // A cell of an experiment that does not exist is a 404, as a call that does not.
    await expect(
      gateway.annotations.add({ target: { experiment_id: 'exp_missing', cell_id: 'a.b' }, text: 'x' }),
    ).rejects.toMatchObject({ status: 404, code: 'cell_not_found', param: 'annotations.0.target.cell_id' });
    await expect(gateway.annotations.list({ since: 'yesterday' })).rejects.toMatchObject({
      status: 400,
      param: 'since',
    });
    await expect(gateway.annotations.list({ limit: 1001 })).rejects.toMatchObject({ status: 400, param: 'limit' });
  });
});

import { describe, expect, it } from 'vitest';
import { ResponseEventStream } from '../../src/dialects/responses/stream-events.ts';

/**
 * A stream whose reasoning comes back after the text (Gemini's thought signature on a later function call): each
 * reasoning item has its own id, as every other item does.
 */
const info = { call_id: '01a2-call', model: 'gemini-2.5-flash', warnings: [] };
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'gemini-2.5-flash',
  choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
});
const chunks = [
  chunk({ reasoning_content: 'First thought.' }),
  chunk({ content: 'Let me look.' }),
  chunk({ reasoning_details: [{ type: 'reasoning.encrypted', data: 'sig', format: 'google-gemini-v1' }] }),
  chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'look', arguments: '{}' } }] }),
  chunk({}, 'tool_calls'),
];
const chat = {
  switchyard: info,
  async *[Symbol.asyncIterator]() {
    yield* chunks;
  },
};

describe('reasoning items in a stream', () => {
  it('each has its own id, the same in its added and done events and the final response', async () => {
    const stream = new ResponseEventStream(chat as never, { model: 'gemini-2.5-flash', input: 'hi' });
    const added: string[] = [];
    let final: Array<{ type: string; id?: string }> = [];
    for await (const event of stream) {
      if (event.type === 'response.output_item.added' && event.item.type === 'reasoning') added.push(event.item.id);
      if (event.type === 'response.completed') final = event.response.output as never;
    }
    const ids = final.filter((item) => item.type === 'reasoning').map((item) => item.id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(added).toEqual(ids);
    expect(new Set(final.map((item) => item.id)).size).toBe(final.length);
  });
});

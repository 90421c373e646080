import { describe, expect, it } from 'vitest';
import { ToolCallHold } from '../../src/completion/tool-call-hold.ts';
import type { CompletionChunk } from '../../src/types.ts';

/** The hold's pass-through: most chunks are handed on as themselves (no array), blank ones dropped. */
function chunk(delta: Record<string, unknown>, finish: string | null = null): CompletionChunk {
  return {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  } as CompletionChunk;
}

describe('ToolCallHold', () => {
  it('hands a chunk without tool calls on as itself, drops a blank one, keeps a usage chunk', () => {
    const hold = new ToolCallHold();
    const text = chunk({ content: 'hi' });
    expect(hold.pass(text)).toBe(text);
    expect(hold.pass(chunk({}))).toBeUndefined();
    const usage = { ...chunk({}), usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
    expect(hold.pass(usage)).toBe(usage);
    const finish = chunk({}, 'stop');
    expect(hold.pass(finish)).toBe(finish);
  });

  it('holds tool-call deltas until the choice finishes, then lets each call out whole before the finish', () => {
    const hold = new ToolCallHold();
    const call = (args: string, extra = {}) =>
      chunk({ tool_calls: [{ index: 0, function: { arguments: args }, ...extra }] });
    expect(
      hold.pass(call('{"a"', { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a"' } })),
    ).toEqual([]);
    expect(hold.pass(call(':1}'))).toEqual([]);
    const finish = chunk({}, 'tool_calls');
    const out = hold.pass(finish) as CompletionChunk[];
    expect(out).toHaveLength(2);
    expect(out[0]!.choices[0]!.delta.tool_calls).toEqual([
      { index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
    ]);
    expect(out[1]).toBe(finish);
  });

  it('holds a custom (free-form) tool call whole too: its name and input, not an empty function', () => {
    const hold = new ToolCallHold();
    const opening = { index: 0, id: 'call_p', type: 'custom', custom: { name: 'apply_patch', input: '' } };
    expect(hold.pass(chunk({ tool_calls: [opening] }))).toEqual([]);
    expect(hold.pass(chunk({ tool_calls: [{ index: 0, custom: { input: '*** Begin' } }] }))).toEqual([]);
    expect(hold.pass(chunk({ tool_calls: [{ index: 0, custom: { input: ' Patch' } }] }))).toEqual([]);
    const out = hold.pass(chunk({}, 'tool_calls')) as CompletionChunk[];
    expect(out[0]!.choices[0]!.delta.tool_calls).toEqual([
      { index: 0, id: 'call_p', type: 'custom', custom: { name: 'apply_patch', input: '*** Begin Patch' } },
    ]);
  });

  it('holds a custom call as it streams (input in pieces), and lets it out whole in its own form', () => {
    const hold = new ToolCallHold();
    const first = { index: 0, id: 'call_c', type: 'custom', custom: { name: 'apply_patch', input: '*** Begin' } };
    expect(hold.pass(chunk({ tool_calls: [first] }))).toEqual([]);
    expect(hold.pass(chunk({ tool_calls: [{ index: 0, custom: { input: ' Patch' } }] }))).toEqual([]);
    const out = hold.pass(chunk({}, 'tool_calls')) as CompletionChunk[];
    expect(out[0]!.choices[0]!.delta.tool_calls).toEqual([
      { index: 0, id: 'call_c', type: 'custom', custom: { name: 'apply_patch', input: '*** Begin Patch' } },
    ]);
  });
});

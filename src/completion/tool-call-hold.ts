import type { CompletionChunk, ToolCallDelta } from '../types.ts';

/**
 * Holds a stream's tool calls back until the choice finishes, then lets each out whole (one delta per call), so a
 * stream that breaks inside a call's arguments can start its tool calls again on the next candidate without the
 * caller ever seeing a call twice. Used only while such a failover can happen.
 */
export class ToolCallHold {
  /** Per choice, per tool call index: the call as assembled so far. */
  readonly #calls = new Map<number, Map<number, ToolCallDelta>>();

  /**
   * The chunk without its tool-call deltas (held), preceded by the held calls whole once its choice finishes; the
   * chunk itself (no array) when it carries no tool call and lets none out, `undefined` when nothing of it is left.
   */
  pass(chunk: CompletionChunk): CompletionChunk | CompletionChunk[] | undefined {
    const { choices } = chunk;
    // Most chunks: no tool call in them, none held (or none let out by a finish).
    if (!this.#touches(choices)) return !chunk.usage && isEmptied(choices) ? undefined : chunk;
    const out: CompletionChunk[] = [];
    for (const choice of choices) {
      const deltas = choice.delta.tool_calls;
      if (deltas?.length) {
        for (const delta of deltas) this.#add(choice.index, delta);
        delete choice.delta.tool_calls;
      }
      const held = this.#calls.get(choice.index);
      if (choice.finish_reason == null || !held) continue;
      this.#calls.delete(choice.index);
      const { usage: _usage, ...frame } = chunk;
      for (const call of [...held.values()].sort((a, b) => a.index - b.index)) {
        const whole = { index: choice.index, delta: { tool_calls: [call] }, finish_reason: null, logprobs: null };
        out.push({ ...frame, choices: [whole] });
      }
    }
    if (!isEmptied(choices) || chunk.usage) out.push(chunk);
    return out;
  }

  /** Whether a choice of the chunk has tool-call deltas, or finishes while calls are held. */
  #touches(choices: CompletionChunk['choices']): boolean {
    for (const choice of choices) {
      if (choice.delta.tool_calls?.length) return true;
      if (choice.finish_reason != null && this.#calls.size > 0) return true;
    }
    return false;
  }

  /** Calls held when the stream broke: dropped, to be made again by the next candidate. */
  clear(): void {
    this.#calls.clear();
  }

  #add(choice: number, delta: ToolCallDelta): void {
    let calls = this.#calls.get(choice);
    if (!calls) this.#calls.set(choice, (calls = new Map()));
    // A custom (free-form) tool's call carries its name and input in `custom`, a function's in `function`.
    const custom = delta.type === 'custom' || delta.custom !== undefined;
    const call =
      calls.get(delta.index) ??
      (custom
        ? { index: delta.index, custom: { name: '', input: '' } }
        : { index: delta.index, function: { name: '', arguments: '' } });
    calls.set(delta.index, call);
    if (delta.id) call.id = delta.id;
    if (delta.type) call.type = delta.type;
    if (call.custom) {
      if (delta.custom?.name) call.custom.name = (call.custom.name ?? '') + delta.custom.name;
      if (delta.custom?.input) call.custom.input = (call.custom.input ?? '') + delta.custom.input;
      return;
    }
    const fn = (call.function ??= {});
    if (delta.function?.name) fn.name = (fn.name ?? '') + delta.function.name;
    if (delta.function?.arguments) fn.arguments = (fn.arguments ?? '') + delta.function.arguments;
  }
}

/** Every choice of the chunk (it has one at least) is blank. */
function isEmptied(choices: CompletionChunk['choices']): boolean {
  if (choices.length === 0) return false;
  for (const choice of choices) if (!isBlank(choice)) return false;
  return true;
}

function isBlank({ delta, finish_reason }: CompletionChunk['choices'][number]): boolean {
  return (
    finish_reason == null &&
    !delta.role &&
    !delta.content &&
    !delta.reasoning_content &&
    !delta.refusal &&
    !delta.images?.length &&
    !delta.reasoning_details?.length
  );
}

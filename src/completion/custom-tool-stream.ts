import { inputOf } from '../providers/custom-tools.ts';
import type { CompletionChunk, CompletionWarning, ToolCallDelta } from '../types.ts';

type Held = { id: string | undefined; name: string; args: string };

/**
 * A stream whose calls of the functions standing for custom tools (`src/providers/custom-tools.ts`) come out as
 * custom calls: each is held until its choice finishes (its JSON arguments must be whole to give the string inside),
 * then let out whole, one delta `{ index, id, type: "custom", custom: { name, input } }`, before the finishing chunk.
 * Function calls pass as they stream.
 */
export async function* customCallsStreamedBack(
  source: AsyncIterable<CompletionChunk>,
  names: ReadonlySet<string>,
  warn: (warning: CompletionWarning) => void,
): AsyncGenerator<CompletionChunk> {
  /** Per choice, per tool call index: the custom calls held, and the calls that are functions (`null`). */
  const calls = new Map<number, Map<number, Held | null>>();
  let frame: Omit<CompletionChunk, 'choices' | 'usage'> | undefined;
  for await (const chunk of source) {
    const { choices, usage: _usage, ...rest } = chunk;
    frame ??= rest;
    let touched = false;
    const out: CompletionChunk[] = [];
    for (const choice of choices) {
      const deltas = choice.delta.tool_calls;
      if (deltas?.length) {
        const passed = deltas.filter((delta) => !hold(calls, choice.index, delta, names));
        if (passed.length < deltas.length) {
          touched = true;
          if (passed.length > 0) choice.delta.tool_calls = passed;
          else delete choice.delta.tool_calls;
        }
      }
      if (choice.finish_reason != null) out.push(...letOut(calls, choice.index, rest, warn));
    }
    if (!touched || !isBlank(chunk)) out.push(chunk);
    yield* out;
  }
  // A stream that ended without finishing its choices still gives the calls it made.
  if (frame) for (const index of [...calls.keys()]) yield* letOut(calls, index, frame, warn);
}

/** Whether the delta belongs to a custom call (then it is held); a call's first delta names its tool. */
function hold(
  calls: Map<number, Map<number, Held | null>>,
  choice: number,
  delta: ToolCallDelta,
  names: ReadonlySet<string>,
): boolean {
  let ofChoice = calls.get(choice);
  if (!ofChoice) calls.set(choice, (ofChoice = new Map()));
  const fn = delta.function;
  let held = ofChoice.get(delta.index);
  if (held === undefined) {
    const name = fn?.name;
    held = name !== undefined && names.has(name) ? { id: delta.id, name, args: '' } : null;
    ofChoice.set(delta.index, held);
  }
  if (held === null) return false;
  if (delta.id) held.id = delta.id;
  held.args += fn?.arguments ?? '';
  return true;
}

function* letOut(
  calls: Map<number, Map<number, Held | null>>,
  choice: number,
  frame: Omit<CompletionChunk, 'choices' | 'usage'>,
  warn: (warning: CompletionWarning) => void,
): Generator<CompletionChunk> {
  const ofChoice = calls.get(choice);
  calls.delete(choice);
  for (const [index, held] of [...(ofChoice ?? [])].sort(([a], [b]) => a - b)) {
    if (!held) continue;
    const call = { index, id: held.id ?? `call_${index}`, type: 'custom' as const };
    const custom = { name: held.name, input: inputOf(held.name, held.args, warn) };
    yield { ...frame, choices: [{ index: choice, delta: { tool_calls: [{ ...call, custom }] }, finish_reason: null }] };
  }
}

/** Nothing left in the chunk once the held deltas are out of it. */
function isBlank(chunk: CompletionChunk): boolean {
  if (chunk.usage) return false;
  return chunk.choices.every((choice) => choice.finish_reason == null && Object.keys(choice.delta).length === 0);
}

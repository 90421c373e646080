import { estimateTokens } from '../budgets/estimate-cost.ts';
import type { CompletionChunk } from '../types.ts';
import type { RecordOutput, RecordToolCall } from './call-record.ts';
import type { UsageLike } from './compute-cost.ts';

/**
 * What a stream produced, as far as it got: the first choice's answer, the usage chunk, and when the first token came.
 */
export interface StreamSummary {
  output: RecordOutput | null;
  usage: UsageLike | null;
  /** Epoch milliseconds of the first chunk carrying text, reasoning, a refusal or a tool call. */
  firstTokenAt: number | null;
}

interface ToolCallParts {
  id: string;
  type: string;
  name: string;
  arguments: string[];
}

/**
 * Assembles a stream's answer chunk by chunk, for its call record. `observe` must see the provider's chunks
 * before the gateway strips the usage chunk (it does when the caller did not ask for `include_usage`).
 * Only choice 0 is kept, as in non-streamed records; work per chunk is a few array pushes.
 */
export class StreamRecorder {
  readonly #content: string[] = [];
  readonly #reasoning: string[] = [];
  readonly #refusal: string[] = [];
  readonly #toolCalls = new Map<number, ToolCallParts>();
  #finishReason: string | null = null;
  #usage: UsageLike | null = null;
  #firstTokenAt: number | null = null;
  #sawChoice = false;

  /** Never throws: a chunk that is not what the wire format promises (`delta: null`, say) adds what it can. */
  observe(chunk: CompletionChunk): void {
    if (isObject(chunk.usage)) this.#usage = chunk.usage;
    if (!Array.isArray(chunk.choices)) return;
    for (const choice of chunk.choices as unknown[]) {
      if (!isObject(choice) || choice.index !== 0) continue;
      this.#sawChoice = true;
      if (typeof choice.finish_reason === 'string' && choice.finish_reason) this.#finishReason = choice.finish_reason;
      const delta = choice.delta;
      if (!isObject(delta)) continue;
      let token = false;
      for (const [text, parts] of [
        [delta.content, this.#content],
        [delta.reasoning_content, this.#reasoning],
        [delta.refusal, this.#refusal],
      ] as const) {
        if (typeof text !== 'string' || !text) continue;
        parts.push(text);
        token = true;
      }
      for (const call of Array.isArray(delta.tool_calls) ? (delta.tool_calls as unknown[]) : []) {
        if (!isObject(call)) continue;
        token = true;
        const index = typeof call.index === 'number' ? call.index : 0;
        let parts = this.#toolCalls.get(index);
        if (!parts) {
          parts = { id: '', type: 'function', name: '', arguments: [] };
          this.#toolCalls.set(index, parts);
        }
        const fn = isObject(call.function) ? call.function : {};
        if (typeof call.id === 'string' && call.id) parts.id = call.id;
        if (typeof call.type === 'string' && call.type) parts.type = call.type;
        if (typeof fn.name === 'string') parts.name += fn.name;
        if (typeof fn.arguments === 'string' && fn.arguments) parts.arguments.push(fn.arguments);
      }
      if (token && this.#firstTokenAt === null) this.#firstTokenAt = Date.now();
    }
  }

  /**
   * The usage of a stream that ended without its usage chunk (left early by the caller, or broken off): the prompt's
   * tokens as given, and the tokens of what was streamed (answer, reasoning, refusal, tool calls) by `estimateTokens`.
   */
  estimatedUsage(promptTokens: number): UsageLike {
    const reasoning = estimateTokens(this.#reasoning.join(''));
    let completion = reasoning + estimateTokens(this.#content.join('')) + estimateTokens(this.#refusal.join(''));
    for (const parts of this.#toolCalls.values())
      completion += estimateTokens(parts.id + parts.name) + estimateTokens(parts.arguments.join(''));
    return {
      prompt_tokens: promptTokens,
      completion_tokens: completion,
      completion_tokens_details: { reasoning_tokens: reasoning },
    };
  }

  summary(): StreamSummary {
    const toolCalls: RecordToolCall[] = [...this.#toolCalls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, parts]) => ({
        id: parts.id,
        type: parts.type,
        function: { name: parts.name, arguments: parts.arguments.join('') },
      }));
    const output: RecordOutput | null = this.#sawChoice
      ? {
          content: joined(this.#content),
          reasoning_content: joined(this.#reasoning),
          tool_calls: toolCalls,
          refusal: joined(this.#refusal),
          finish_reason: this.#finishReason,
        }
      : null;
    return { output, usage: this.#usage, firstTokenAt: this.#firstTokenAt };
  }
}

function joined(parts: string[]): string | null {
  return parts.length === 0 ? null : parts.join('');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import { estimateTokens } from '../internal/estimate-tokens.ts';
import type { CompletionChunk } from '../types.ts';
import type { RecordImage, RecordOutput, RecordToolCall } from './call-record.ts';
import type { UsageLike } from './compute-cost.ts';
import { recordImage } from './record-output.ts';

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
  /** The images streamed, as their type and size: the record never holds their bytes. */
  readonly #images: RecordImage[] = [];
  #finishReason: string | null = null;
  #usage: UsageLike | null = null;
  #firstTokenAt: number | null = null;
  #sawChoice = false;

  /** Never throws: a chunk that is not what the wire format promises (`delta: null`, say) adds what it can. */
  observe(chunk: CompletionChunk): void {
    if (isObject(chunk.usage)) this.#usage = chunk.usage;
    const choices = chunk.choices as unknown;
    if (!Array.isArray(choices)) return;
    for (const choice of choices as unknown[]) {
      if (!isObject(choice) || choice.index !== 0) continue;
      this.#sawChoice = true;
      if (typeof choice.finish_reason === 'string' && choice.finish_reason) this.#finishReason = choice.finish_reason;
      const delta = choice.delta;
      if (!isObject(delta)) continue;
      // Three fields spelt out, not a table of them: this runs for every chunk of every stream.
      let token = false;
      const { content, reasoning_content: reasoning, refusal, tool_calls: calls } = delta;
      if (typeof content === 'string' && content) {
        this.#content.push(content);
        token = true;
      }
      if (typeof reasoning === 'string' && reasoning) {
        this.#reasoning.push(reasoning);
        token = true;
      }
      if (typeof refusal === 'string' && refusal) {
        this.#refusal.push(refusal);
        token = true;
      }
      if (Array.isArray(calls)) for (const call of calls as unknown[]) token = this.#observeCall(call) || token;
      if (Array.isArray(delta.images) && delta.images.length > 0) {
        for (const image of delta.images as unknown[]) this.#images.push(recordImage(image));
        token = true;
      }
      if (token && this.#firstTokenAt === null) this.#firstTokenAt = Date.now();
    }
  }

  /** The usage chunk's usage so far, without building the summary. */
  get usage(): UsageLike | null {
    return this.#usage;
  }

  /** Choice 0's tool calls so far, as new objects each time (a check may rewrite their arguments). */
  toolCalls(): RecordToolCall[] {
    if (this.#toolCalls.size === 0) return [];
    return [...this.#toolCalls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, parts]) => ({
        id: parts.id,
        type: parts.type,
        function: { name: parts.name, arguments: parts.arguments.join('') },
      }));
  }

  #observeCall(call: unknown): boolean {
    if (!isObject(call)) return false;
    const index = typeof call.index === 'number' ? call.index : 0;
    let parts = this.#toolCalls.get(index);
    if (!parts) {
      parts = { id: '', type: 'function', name: '', arguments: [] };
      this.#toolCalls.set(index, parts);
    }
    // A custom call's input is kept as its arguments, as the record keeps a whole answer's.
    const fn = isObject(call.function) ? call.function : isObject(call.custom) ? call.custom : {};
    const text = fn.arguments ?? fn.input;
    if (typeof call.id === 'string' && call.id) parts.id = call.id;
    if (typeof call.type === 'string' && call.type) parts.type = call.type;
    if (typeof fn.name === 'string') parts.name += fn.name;
    if (typeof text === 'string' && text) parts.arguments.push(text);
    return true;
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

  /** New objects each call (the relay sets the summed usage on its own); the end of a stream builds it once. */
  summary(): StreamSummary {
    const output: RecordOutput | null = this.#sawChoice
      ? {
          content: joined(this.#content),
          reasoning_content: joined(this.#reasoning),
          tool_calls: this.toolCalls(),
          refusal: joined(this.#refusal),
          finish_reason: this.#finishReason,
          ...(this.#images.length > 0 ? { images: [...this.#images] } : {}),
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

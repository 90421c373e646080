import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import type { CompletionChunk, CompletionChunkDelta } from '../../types.ts';
import { CLAUDE_REASONING_FORMAT as CLAUDE_REASONING } from '../reasoning-format.ts';
import { toFinishReason, usageOf } from './convert-response.ts';

/**
 * ConverseStream events as OpenAI chunks: text and reasoning deltas as they come, a tool call opened by its block's
 * start and filled by its input deltas, Claude's thinking signature in `reasoning_details` when its block ends, the
 * finish reason at `messageStop` and usage (from `metadata`, which comes after it) last.
 */
export class StreamConverter {
  readonly #id: string;
  readonly #model: string;
  readonly #created = Math.floor(Date.now() / 1000);
  /** Converse block index → OpenAI tool-call index. */
  readonly #tools = new Map<number, number>();
  readonly #thinking = new Map<number, { text: string; signature: string }>();
  finished = false;

  constructor(id: string, model: string) {
    this.#id = id;
    this.#model = model;
  }

  *convert(event: ConverseStreamOutput): Iterable<CompletionChunk> {
    if (event.contentBlockStart?.start?.toolUse) {
      const { toolUseId, name } = event.contentBlockStart.start.toolUse;
      const index = this.#tools.size;
      this.#tools.set(event.contentBlockStart.contentBlockIndex ?? index, index);
      yield this.#chunk({
        tool_calls: [
          { index, id: toolUseId ?? `call_${index}`, type: 'function', function: { name: name ?? '', arguments: '' } },
        ],
      });
    } else if (event.contentBlockDelta?.delta) {
      const { delta, contentBlockIndex = 0 } = event.contentBlockDelta;
      if (delta.text !== undefined) yield this.#chunk({ content: delta.text });
      else if (delta.toolUse) {
        const index = this.#tools.get(contentBlockIndex) ?? 0;
        yield this.#chunk({ tool_calls: [{ index, function: { arguments: delta.toolUse.input ?? '' } }] });
      } else if (delta.reasoningContent) {
        const thinking = this.#thinking.get(contentBlockIndex) ?? { text: '', signature: '' };
        this.#thinking.set(contentBlockIndex, thinking);
        if (delta.reasoningContent.text !== undefined) {
          thinking.text += delta.reasoningContent.text;
          yield this.#chunk({ reasoning_content: delta.reasoningContent.text } as CompletionChunkDelta);
        }
        if (delta.reasoningContent.signature) thinking.signature += delta.reasoningContent.signature;
      }
    } else if (event.contentBlockStop) {
      const thinking = this.#thinking.get(event.contentBlockStop.contentBlockIndex ?? 0);
      if (thinking?.signature) {
        const detail = {
          type: 'reasoning.text',
          format: CLAUDE_REASONING,
          text: thinking.text,
          signature: thinking.signature,
        };
        yield this.#chunk({ reasoning_details: [detail] } as CompletionChunkDelta);
      }
    } else if (event.messageStop) {
      this.finished = true;
      yield this.#chunk({}, toFinishReason(event.messageStop.stopReason));
    } else if (event.metadata) {
      yield { ...this.#base(), choices: [], usage: usageOf(event.metadata.usage) };
    }
  }

  #base() {
    return { id: this.#id, object: 'chat.completion.chunk' as const, created: this.#created, model: this.#model };
  }

  #chunk(
    delta: CompletionChunkDelta,
    finish: CompletionChunk['choices'][number]['finish_reason'] = null,
  ): CompletionChunk {
    return { ...this.#base(), choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
  }
}

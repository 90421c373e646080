import type Anthropic from '@anthropic-ai/sdk';
import type { CompletionChunk, CompletionChunkDelta } from '../../types.ts';
import { CLAUDE_REASONING_FORMAT as FORMAT } from '../reasoning-format.ts';
import { type FinishReason, refusalText, toFinishReason } from './map-stop-reason.ts';
import { type AnthropicUsage, toUsage } from './map-usage.ts';

/** Anthropic's stream events as OpenAI chunks. */

interface OpenBlock {
  type: string;
  text: string;
  signature?: string;
  data?: string;
  toolIndex?: number;
  argumentsSent?: boolean;
  input?: unknown;
}

/**
 * Turns Anthropic's stream events into OpenAI chunks. The role chunk is held back until the first chunk with
 * something in it, so a stream that fails before any content fails the attempt (and is retried) instead of
 * reaching the caller half-started.
 */
export class StreamConverter {
  #id = 'msg_unknown';
  #model: string;
  readonly #created = Math.floor(Date.now() / 1000);
  #usage: AnthropicUsage = { output_tokens: 0 };
  readonly #blocks = new Map<number, OpenBlock>();
  #toolCount = 0;
  #started = false;
  /** A message_delta with the stop reason arrived. */
  finished = false;

  constructor(model: string) {
    this.#model = model;
  }

  handle(event: Anthropic.RawMessageStreamEvent): CompletionChunk[] {
    switch (event.type) {
      case 'message_start':
        this.#id = event.message.id;
        this.#model = event.message.model;
        this.#usage = { ...event.message.usage };
        return [];
      case 'content_block_start':
        return this.#start(event.index, event.content_block);
      case 'content_block_delta':
        return this.#delta(event.index, event.delta);
      case 'content_block_stop':
        return this.#stop(event.index);
      case 'message_delta': {
        // message_delta usage is cumulative; null fields keep what message_start said.
        for (const [key, value] of Object.entries(event.usage))
          if (value != null) (this.#usage as Record<string, unknown>)[key] = value;
        this.finished = true;
        const chunks: CompletionChunk[] = [];
        if (event.delta.stop_reason === 'refusal')
          chunks.push(...this.#emit({ refusal: refusalText(event.delta.stop_details, null) }));
        chunks.push(...this.#emit({}, toFinishReason(event.delta.stop_reason)));
        return chunks;
      }
      default:
        // message_stop, and event types this version does not know.
        return [];
    }
  }

  /** The closing chunk: empty choices and the usage of the whole message. */
  usageChunk(): CompletionChunk {
    return { ...this.#base(), choices: [], usage: toUsage(this.#usage) };
  }

  #start(index: number, block: Anthropic.RawContentBlockStartEvent['content_block']): CompletionChunk[] {
    if (block.type === 'text') {
      this.#blocks.set(index, { type: 'text', text: '' });
      return block.text ? this.#emit({ content: block.text }) : [];
    }
    if (block.type === 'thinking') {
      this.#blocks.set(index, { type: 'thinking', text: block.thinking, signature: block.signature });
      return block.thinking ? this.#emit({ reasoning_content: block.thinking }) : [];
    }
    if (block.type === 'redacted_thinking') {
      this.#blocks.set(index, { type: 'redacted_thinking', text: '', data: block.data });
      return [];
    }
    if (block.type === 'tool_use') {
      const toolIndex = this.#toolCount++;
      this.#blocks.set(index, { type: 'tool_use', text: '', toolIndex, input: block.input });
      return this.#emit({
        tool_calls: [
          { index: toolIndex, id: block.id, type: 'function', function: { name: block.name, arguments: '' } },
        ],
      });
    }
    this.#blocks.set(index, { type: block.type, text: '' });
    return [];
  }

  #delta(index: number, delta: Anthropic.RawContentBlockDelta): CompletionChunk[] {
    const block = this.#blocks.get(index);
    if (delta.type === 'text_delta') return delta.text ? this.#emit({ content: delta.text }) : [];
    if (delta.type === 'thinking_delta') {
      if (block) block.text += delta.thinking;
      return delta.thinking ? this.#emit({ reasoning_content: delta.thinking }) : [];
    }
    if (delta.type === 'signature_delta') {
      if (block) block.signature = delta.signature;
      return [];
    }
    if (delta.type === 'input_json_delta' && block?.toolIndex !== undefined && delta.partial_json) {
      block.argumentsSent = true;
      return this.#emit({ tool_calls: [{ index: block.toolIndex, function: { arguments: delta.partial_json } }] });
    }
    return [];
  }

  #stop(index: number): CompletionChunk[] {
    const block = this.#blocks.get(index);
    if (block?.type === 'thinking') {
      return this.#emit({
        reasoning_details: [
          { type: 'reasoning.text', format: FORMAT, text: block.text, signature: block.signature ?? '' },
        ],
      });
    }
    if (block?.type === 'redacted_thinking')
      return this.#emit({ reasoning_details: [{ type: 'reasoning.encrypted', format: FORMAT, data: block.data! }] });
    if (block?.toolIndex !== undefined && !block.argumentsSent) {
      // A tool without arguments streams no input_json_delta; callers still expect a JSON object.
      return this.#emit({
        tool_calls: [{ index: block.toolIndex, function: { arguments: JSON.stringify(block.input ?? {}) } }],
      });
    }
    return [];
  }

  #emit(delta: CompletionChunkDelta, finishReason: FinishReason | null = null): CompletionChunk[] {
    const chunks: CompletionChunk[] = [];
    if (!this.#started) {
      this.#started = true;
      chunks.push(this.#chunk({ role: 'assistant', content: '' }, null));
    }
    chunks.push(this.#chunk(delta, finishReason));
    return chunks;
  }

  #chunk(delta: CompletionChunkDelta, finishReason: FinishReason | null): CompletionChunk {
    return { ...this.#base(), choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] };
  }

  #base(): Omit<CompletionChunk, 'choices'> {
    return { id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.#model };
  }
}

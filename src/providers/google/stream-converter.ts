import type { Candidate, GenerateContentResponse } from '@google/genai';
import type { CompletionUsage } from 'openai/resources/completions';
import type { CompletionChunk, CompletionChunkDelta } from '../../types.ts';
import { blockedPromptMessage, synthesizedId, toPartEvent } from './convert-response.ts';
import { type FinishReason, toFinishReason } from './map-finish-reason.ts';
import { toUsage } from './map-usage.ts';

/** Gemini's stream of `GenerateContentResponse` chunks as OpenAI chunks. */

/** Turns the SDK's stream of `GenerateContentResponse` chunks into OpenAI chunks, one part at a time. */
export class StreamConverter {
  readonly #model: string;
  readonly #onDropped: (what: string) => void;
  readonly #created = Math.floor(Date.now() / 1000);
  #id: string | undefined;
  #usage: CompletionUsage | undefined;
  /** Per candidate index: tool calls emitted so far, and whether its finish chunk was sent. */
  readonly #choices = new Map<number, { toolCalls: number; finished: boolean }>();

  constructor(model: string, onDropped: (what: string) => void) {
    this.#model = model;
    this.#onDropped = onDropped;
  }

  convert(response: GenerateContentResponse): CompletionChunk[] {
    this.#id ??= response.responseId || synthesizedId('chatcmpl-');
    if (response.usageMetadata) this.#usage = toUsage(response.usageMetadata);
    const chunks: CompletionChunk[] = [];
    const candidates: Candidate[] = response.candidates ?? [];
    candidates.forEach((candidate, position) => {
      chunks.push(...this.#candidateChunks(candidate, candidate.index ?? position));
    });
    const blocked = candidates.length === 0 ? blockedPromptMessage(response) : undefined;
    if (blocked && !this.#choices.get(0)?.finished) {
      chunks.push(...this.#open(0), this.#chunk(0, { refusal: blocked }));
      this.#choices.get(0)!.finished = true;
      chunks.push(this.#chunk(0, {}, 'content_filter'));
    }
    return chunks;
  }

  /** The closing chunks: a finish reason for any choice the stream left open, then the usage chunk. */
  /** Whether the stream ended before a finishReason (or a prompt block) closed every choice: it was cut off. */
  get truncated(): boolean {
    return this.#choices.size === 0 || [...this.#choices.values()].some((state) => !state.finished);
  }

  /** The closing usage chunk, once every choice has finished. */
  finish(): CompletionChunk[] {
    return this.#usage ? [{ ...this.#base(), choices: [], usage: this.#usage }] : [];
  }

  #candidateChunks(candidate: Candidate, index: number): CompletionChunk[] {
    const chunks = this.#open(index);
    const state = this.#choices.get(index)!;
    for (const part of candidate.content?.parts ?? []) {
      const event = toPartEvent(part);
      const details = 'detail' in event && event.detail ? { reasoning_details: [event.detail] } : {};
      if (event.kind === 'unsupported') this.#onDropped(event.what);
      else if (event.kind === 'reasoning')
        chunks.push(this.#chunk(index, { reasoning_content: event.text, ...details }));
      else if (event.kind === 'content') chunks.push(this.#chunk(index, { content: event.text, ...details }));
      else if (event.kind === 'signature') chunks.push(this.#chunk(index, details));
      else if (event.kind === 'image') chunks.push(this.#chunk(index, { images: [event.image], ...details }));
      else {
        const toolCall = {
          index: state.toolCalls++,
          id: event.call.id,
          type: 'function' as const,
          function: { name: event.call.name, arguments: event.call.arguments },
        };
        chunks.push(this.#chunk(index, { tool_calls: [toolCall], ...details }));
      }
    }
    if (candidate.finishReason && !state.finished) {
      state.finished = true;
      chunks.push(this.#chunk(index, {}, toFinishReason(candidate.finishReason, state.toolCalls > 0)));
    }
    return chunks;
  }

  /** The `{ role: 'assistant', content: '' }` chunk that opens each choice, the first time it is seen. */
  #open(index: number): CompletionChunk[] {
    if (this.#choices.has(index)) return [];
    this.#choices.set(index, { toolCalls: 0, finished: false });
    return [this.#chunk(index, { role: 'assistant', content: '' })];
  }

  #base(): Omit<CompletionChunk, 'choices'> {
    return {
      id: this.#id ?? synthesizedId('chatcmpl-'),
      object: 'chat.completion.chunk',
      created: this.#created,
      model: this.#model,
    };
  }

  #chunk(index: number, delta: CompletionChunkDelta, finishReason: FinishReason | null = null): CompletionChunk {
    return { ...this.#base(), choices: [{ index, delta, logprobs: null, finish_reason: finishReason }] };
  }
}

import type Anthropic from '@anthropic-ai/sdk';
import type { CompletionStream } from '../../completion/completion-stream.ts';
import { SwitchyardError } from '../../errors.ts';
import { CLAUDE_REASONING_FORMAT as CLAUDE_REASONING } from '../../providers/reasoning-format.ts';
import type { CompletionChunk, SwitchyardResponseInfo } from '../../types.ts';
import { messageId, messageUsage, stopReason } from './from-chat.ts';

type Event = Anthropic.RawMessageStreamEvent;
type Block = { kind: 'thinking' | 'text' | 'tool'; index: number };

/**
 * A streamed Messages API answer: the chat stream's chunks as the Messages API's event sequence (`message_start`,
 * `ping`, `content_block_start` / `_delta` / `_stop` per block, `message_delta` with the usage, `message_stop`).
 * It can be iterated once.
 */
export class MessageEventStream implements AsyncIterable<Event> {
  readonly switchyard: SwitchyardResponseInfo;
  readonly #chat: CompletionStream;
  readonly #thinkingText: boolean;

  /** Without `thinkingText`, thinking blocks carry their signatures only, and unsigned reasoning is left out. */
  constructor(chat: CompletionStream, thinkingText = true) {
    this.#chat = chat;
    this.#thinkingText = thinkingText;
    this.switchyard = chat.switchyard;
  }

  [Symbol.asyncIterator](): AsyncIterator<Event> {
    return translate(this.#chat, this.switchyard, this.#thinkingText)[Symbol.asyncIterator]();
  }

  /**
   * The events as server-sent events (`event: <type>` and `data: {…}`). A failure mid-stream becomes an `error`
   * event, as Anthropic sends it, instead of a throw.
   */
  async *sseEvents(): AsyncGenerator<string, void, undefined> {
    const events = this[Symbol.asyncIterator]();
    try {
      for (let next = await events.next(); !next.done; next = await events.next())
        yield `event: ${next.value.type}\ndata: ${JSON.stringify(next.value)}\n\n`;
    } catch (error) {
      yield `event: error\ndata: ${JSON.stringify(anthropicErrorBody(error))}\n\n`;
    } finally {
      await events.return?.();
    }
  }
}

/** Anthropic's error body for anything thrown; details of what is not ours stay out. */
export function anthropicErrorBody(error: unknown): { type: 'error'; error: { type: string; message: string } } {
  if (!(error instanceof SwitchyardError))
    return { type: 'error', error: { type: 'api_error', message: 'The call failed.' } };
  return { type: 'error', error: { type: anthropicErrorType(error.status), message: error.message } };
}

/** The Messages API's error type for an HTTP status. */
function anthropicErrorType(status: number): string {
  if (status === 400 || status === 413 || status === 422)
    return status === 413 ? 'request_too_large' : 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'billing_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 503 || status === 529) return 'overloaded_error';
  if (status === 504) return 'timeout_error';
  return 'api_error';
}

async function* translate(
  chat: CompletionStream,
  info: SwitchyardResponseInfo,
  thinkingText: boolean,
): AsyncGenerator<Event> {
  yield {
    type: 'message_start',
    message: {
      id: messageId(info.call_id),
      type: 'message',
      role: 'assistant',
      model: info.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      usage: messageUsage(undefined),
    },
  } as Event;
  yield { type: 'ping' } as unknown as Event;
  let open: Block | undefined;
  let next = 0;
  let finish: string | null = null;
  let refused = false;
  let usage: CompletionChunk['usage'];
  // Per tool call index: its block, and the id it was opened with.
  const tools = new Map<number, { block: number; id: string | undefined }>();
  const close = function* (): Generator<Event> {
    if (open) yield { type: 'content_block_stop', index: open.index };
    open = undefined;
  };
  const start = function* (kind: Block['kind'], block: Record<string, unknown>): Generator<Event> {
    yield* close();
    open = { kind, index: next++ };
    yield { type: 'content_block_start', index: open.index, content_block: block } as unknown as Event;
  };

  for await (const chunk of chat) {
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    const delta = choice.delta;
    if (delta.reasoning_content && thinkingText) {
      if (open?.kind !== 'thinking') yield* start('thinking', { type: 'thinking', thinking: '', signature: '' });
      yield delta_(open!, { type: 'thinking_delta', thinking: delta.reasoning_content });
    }
    for (const detail of delta.reasoning_details ?? []) {
      if (detail.format !== CLAUDE_REASONING) continue;
      if (detail.type === 'reasoning.encrypted') {
        yield* start('thinking', { type: 'redacted_thinking', data: detail.data ?? '' });
        yield* close();
        continue;
      }
      if (open?.kind !== 'thinking') yield* start('thinking', { type: 'thinking', thinking: '', signature: '' });
      if (detail.signature) yield delta_(open!, { type: 'signature_delta', signature: detail.signature });
      yield* close();
    }
    const text = delta.content || delta.refusal;
    if (delta.refusal) refused = true;
    if (text) {
      if (open?.kind !== 'text') yield* start('text', { type: 'text', text: '', citations: null });
      yield delta_(open!, { type: 'text_delta', text });
    }
    for (const call of delta.tool_calls ?? []) {
      if (call.type === 'custom') continue; // a Messages request has no custom tools
      // Some providers name the call again on each chunk (or with an empty id): a new call is a new index, or
      // another id at a known one.
      const known = tools.get(call.index);
      if (!known || (call.id && known.id !== undefined && call.id !== known.id)) {
        yield* start('tool', {
          type: 'tool_use',
          id: call.id || `toolu_${call.index}`,
          name: call.function?.name ?? '',
          input: {},
          caller: { type: 'direct' },
        });
        tools.set(call.index, { block: open!.index, id: call.id || undefined });
      }
      const args = call.function?.arguments;
      const block = tools.get(call.index)!.block;
      if (args) yield delta_({ kind: 'tool', index: block }, { type: 'input_json_delta', partial_json: args });
    }
    if (choice.finish_reason) {
      finish = choice.finish_reason;
      yield* close();
    }
  }
  yield* close();
  const final = messageUsage(usage ?? undefined);
  yield {
    type: 'message_delta',
    delta: {
      stop_reason: stopReason(finish, refused ? 'refused' : null),
      stop_sequence: null,
      stop_details: null,
      container: null,
    },
    usage: {
      input_tokens: final.input_tokens,
      output_tokens: final.output_tokens,
      cache_creation_input_tokens: final.cache_creation_input_tokens,
      cache_read_input_tokens: final.cache_read_input_tokens,
      output_tokens_details: null,
      server_tool_use: null,
    },
  } as Event;
  yield { type: 'message_stop' };
}

function delta_(block: Block, delta: Record<string, unknown>): Event {
  return { type: 'content_block_delta', index: block.index, delta } as unknown as Event;
}

import type {
  ResponseCreateParams,
  ResponseOutputItem,
  ResponseOutputText,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import type { CompletionStream } from '../../completion/completion-stream.ts';
import { SwitchyardError } from '../../errors.ts';
import type { CompletionChunk, ReasoningDetail, SwitchyardResponseInfo } from '../../types.ts';
import { itemId, reasoningItem, responseLogprobs, responseObject } from './from-chat.ts';
import { type ClientToolName, clientToolName, namespacedNames } from './namespace-tools.ts';

type Event = ResponseStreamEvent;
type Open =
  | { kind: 'reasoning'; index: number; text: string; details: ReasoningDetail[]; summaryOpen: boolean }
  | { kind: 'text' | 'refusal'; index: number; id: string; text: string; logprobs: ResponseOutputText.Logprob[] }
  | { kind: 'call'; index: number; id: string; callId: string; name: ClientToolName; args: string; custom: boolean };

/**
 * A streamed Responses API answer: the chat stream's chunks as the Responses API's events, in its order
 * (`response.created`, `response.in_progress`, then per output item `response.output_item.added`, its deltas and
 * `…done` events, `response.output_item.done`, and `response.completed` with the whole response). It can be
 * iterated once.
 */
export class ResponseEventStream implements AsyncIterable<Event> {
  readonly switchyard: SwitchyardResponseInfo;
  readonly #chat: CompletionStream;
  readonly #params: ResponseCreateParams;
  readonly #createdAt = Math.floor(Date.now() / 1000);

  constructor(chat: CompletionStream, params: ResponseCreateParams) {
    this.#chat = chat;
    this.#params = params;
    this.switchyard = chat.switchyard;
  }

  [Symbol.asyncIterator](): AsyncIterator<Event> {
    return translate(this.#chat, this.#params, this.switchyard, this.#createdAt)[Symbol.asyncIterator]();
  }

  /**
   * The events as server-sent events. A failure mid-stream ends them with `response.failed` (the response, its
   * status `failed` and its `error`: what a client such as Codex reads to tell a failed turn from a dropped
   * connection), then an `error` event, which the SDKs raise.
   */
  async *sseEvents(): AsyncGenerator<string, void, undefined> {
    const events = this[Symbol.asyncIterator]();
    let sequence = 0;
    try {
      for (let next = await events.next(); !next.done; next = await events.next()) {
        sequence = next.value.sequence_number + 1;
        yield `event: ${next.value.type}\ndata: ${JSON.stringify(next.value)}\n\n`;
      }
    } catch (error) {
      const body =
        error instanceof SwitchyardError
          ? { type: 'error', code: error.code, message: error.message, param: error.param }
          : { type: 'error', code: 'internal_error', message: 'The stream failed.', param: null };
      const response = {
        ...responseObject(
          { ...this.#params, instructions: null },
          this.switchyard,
          [],
          undefined,
          null,
          this.#createdAt,
        ),
        status: 'failed',
        error: { code: body.code, message: body.message },
      };
      const failed = { type: 'response.failed', response, sequence_number: sequence };
      yield `event: response.failed\ndata: ${JSON.stringify(failed)}\n\n`;
      yield `event: error\ndata: ${JSON.stringify({ ...body, sequence_number: sequence + 1 })}\n\n`;
    } finally {
      await events.return?.();
    }
  }
}

async function* translate(
  chat: CompletionStream,
  params: ResponseCreateParams,
  info: SwitchyardResponseInfo,
  createdAt: number,
): AsyncGenerator<Event> {
  let sequence = 0;
  const event = (fields: Record<string, unknown>): Event => ({ ...fields, sequence_number: sequence++ }) as Event;
  const withSummary = params.reasoning?.summary != null;
  // The request's instructions are echoed once, in the final response (the one clients keep): a long system prompt
  // is not sent back again in each snapshot before it.
  const early = { ...params, instructions: null };
  const started = () => responseObject(early, info, [], undefined, null, createdAt);
  const done: ResponseOutputItem[] = [];
  const calls = new Map<number, Extract<Open, { kind: 'call' }>>();
  const names = namespacedNames(params.tools);
  let open: Open | undefined;
  let finish: string | null = null;
  let usage: CompletionChunk['usage'];

  yield event({ type: 'response.created', response: started() });
  yield event({ type: 'response.in_progress', response: started() });

  /** Ends the open item with its `…done` events. */
  function* close(): Generator<Event> {
    const item = open;
    open = undefined;
    if (!item) return;
    if (item.kind === 'reasoning') {
      const id = itemId('rs', info.call_id, item.index);
      if (item.summaryOpen) {
        const part = { type: 'summary_text', text: item.text };
        const at = { item_id: id, output_index: item.index, summary_index: 0 };
        yield event({ type: 'response.reasoning_summary_text.done', ...at, text: item.text });
        yield event({ type: 'response.reasoning_summary_part.done', ...at, part });
      }
      const full = reasoningItem(info.call_id, item.text, item.details, withSummary, item.index)!;
      done.push(full);
      yield event({ type: 'response.output_item.done', output_index: item.index, item: full });
    } else if (item.kind === 'call') {
      const at = { item_id: item.id, output_index: item.index };
      const base = { id: item.id, call_id: item.callId, ...item.name };
      if (item.custom) yield event({ type: 'response.custom_tool_call_input.done', ...at, input: item.args });
      else
        yield event({
          type: 'response.function_call_arguments.done',
          ...at,
          arguments: item.args,
          name: item.name.name,
        });
      const completed = (
        item.custom
          ? { type: 'custom_tool_call', ...base, input: item.args }
          : { type: 'function_call', ...base, arguments: item.args, status: 'completed' }
      ) as ResponseOutputItem;
      done.push(completed);
      yield event({ type: 'response.output_item.done', output_index: item.index, item: completed });
    } else {
      const at = { item_id: item.id, output_index: item.index, content_index: 0 };
      const part =
        item.kind === 'text'
          ? { type: 'output_text', text: item.text, annotations: [], logprobs: item.logprobs }
          : { type: 'refusal', refusal: item.text };
      if (item.kind === 'text')
        yield event({ type: 'response.output_text.done', ...at, text: item.text, logprobs: item.logprobs });
      else yield event({ type: 'response.refusal.done', ...at, refusal: item.text });
      yield event({ type: 'response.content_part.done', ...at, part });
      const message = { type: 'message', id: item.id, role: 'assistant', status: 'completed', content: [part] };
      done.push(message as ResponseOutputItem);
      yield event({ type: 'response.output_item.done', output_index: item.index, item: message });
    }
  }

  function* openMessage(kind: 'text' | 'refusal'): Generator<Event> {
    yield* close();
    const index = done.length;
    const id = itemId('msg', info.call_id, index);
    open = { kind, index, id, text: '', logprobs: [] };
    const item = { type: 'message', id, role: 'assistant', status: 'in_progress', content: [] };
    yield event({ type: 'response.output_item.added', output_index: index, item });
    const part =
      kind === 'text'
        ? { type: 'output_text', text: '', annotations: [], logprobs: [] }
        : { type: 'refusal', refusal: '' };
    yield event({ type: 'response.content_part.added', item_id: id, output_index: index, content_index: 0, part });
  }

  for await (const chunk of chat) {
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    const delta = choice.delta;
    if (delta.reasoning_content || delta.reasoning_details?.length) {
      if (open?.kind !== 'reasoning') {
        yield* close();
        open = { kind: 'reasoning', index: done.length, text: '', details: [], summaryOpen: false };
        const id = itemId('rs', info.call_id, open.index);
        const item = { type: 'reasoning', id, summary: [], status: 'in_progress' };
        yield event({ type: 'response.output_item.added', output_index: open.index, item });
      }
      const reasoning = open;
      reasoning.details.push(...(delta.reasoning_details ?? []));
      if (delta.reasoning_content) {
        reasoning.text += delta.reasoning_content;
        if (withSummary) {
          const at = {
            item_id: itemId('rs', info.call_id, reasoning.index),
            output_index: reasoning.index,
            summary_index: 0,
          };
          if (!reasoning.summaryOpen) {
            reasoning.summaryOpen = true;
            yield event({
              type: 'response.reasoning_summary_part.added',
              ...at,
              part: { type: 'summary_text', text: '' },
            });
          }
          yield event({ type: 'response.reasoning_summary_text.delta', ...at, delta: delta.reasoning_content });
        }
      }
    }
    for (const [kind, text] of [
      ['text', delta.content],
      ['refusal', delta.refusal],
    ] as const) {
      if (!text) continue;
      if (open?.kind !== kind) yield* openMessage(kind);
      const message = open as Extract<Open, { kind: 'text' | 'refusal' }>;
      message.text += text;
      const at = { item_id: message.id, output_index: message.index, content_index: 0 };
      const logprobs = kind === 'text' ? responseLogprobs(choice.logprobs?.content) : [];
      for (const logprob of logprobs) message.logprobs.push(logprob);
      if (kind === 'text') yield event({ type: 'response.output_text.delta', ...at, delta: text, logprobs });
      else yield event({ type: 'response.refusal.delta', ...at, delta: text });
    }
    for (const call of delta.tool_calls ?? []) {
      let current = calls.get(call.index);
      if (!current) {
        yield* close();
        const index = done.length;
        const custom = call.type === 'custom' || call.custom !== undefined;
        current = {
          kind: 'call',
          index,
          id: itemId(custom ? 'ctc' : 'fc', info.call_id, index),
          callId: call.id || `call_${index}`,
          name: clientToolName(names, (custom ? call.custom?.name : call.function?.name) ?? ''),
          args: '',
          custom,
        };
        calls.set(call.index, current);
        open = current;
        const base = { id: current.id, call_id: current.callId, ...current.name };
        const item = custom
          ? { type: 'custom_tool_call', ...base, input: '' }
          : { type: 'function_call', ...base, arguments: '', status: 'in_progress' };
        yield event({ type: 'response.output_item.added', output_index: index, item });
      }
      const args = current.custom ? call.custom?.input : call.function?.arguments;
      if (args) {
        current.args += args;
        const at = { item_id: current.id, output_index: current.index, delta: args };
        if (current.custom) yield event({ type: 'response.custom_tool_call_input.delta', ...at });
        else yield event({ type: 'response.function_call_arguments.delta', ...at });
      }
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  yield* close();
  const final = responseObject(params, info, done, usage ?? undefined, finish ?? 'stop', createdAt);
  const type = final.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
  yield event({ type, response: final });
}

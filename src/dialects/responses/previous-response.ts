import type { Services } from '../../completion/services.ts';
import { InvalidRequestError } from '../../errors.ts';
import { REDACTED } from '../../records/call-record.ts';
import type { CompletionMessageParam } from '../../types.ts';
import { callIdOf } from './from-chat.ts';

/**
 * The conversation a `previous_response_id` continues, read back from the call records: the messages that call
 * sent and the answer it got. The records are the gateway's state, so this works on any model and across
 * `serve` restarts (with SQLite), as long as the record is kept whole. Anything else is a clear 400.
 */
export async function previousConversation(services: Services, responseId: string): Promise<CompletionMessageParam[]> {
  const refuse = (why: string): never => {
    throw new InvalidRequestError(
      `previous_response_id "${responseId}" cannot be continued: ${why}. Send the whole conversation as input instead.`,
      'previous_response_id',
      'previous_response_not_found',
    );
  };
  const callId = callIdOf(responseId);
  if (!callId) return refuse('it is not a response id this gateway made');
  const store = services.recorder.calls;
  if (typeof store.get !== 'function') return refuse('the call-record store cannot look a call up by id');
  // The record is written off the request path: wait for the calls made so far to be recorded.
  await services.recorder.flush();
  const record = await store.get(callId);
  if (!record) return refuse('no call record has that id (records off, or aged out of the store)');
  if (record.dialect !== 'responses') return refuse(`it was a ${record.dialect} call`);
  if (record.status !== 'ok' || !record.output) return refuse('that call did not answer');
  const messages = record.input_messages ?? [];
  if (JSON.stringify(messages).includes(`"${REDACTED}"`) || record.output.content === REDACTED)
    return refuse('the records are redacted');
  const { content, tool_calls: toolCalls } = record.output;
  const answer: Record<string, unknown> = { role: 'assistant', content };
  if (toolCalls.length > 0) answer.tool_calls = toolCalls;
  // The earlier call's `instructions` are not carried over: the new call gives its own.
  const carried = messages.filter((message) => !(message as { from_instructions?: unknown }).from_instructions);
  return [...(carried as CompletionMessageParam[]), answer as CompletionMessageParam];
}

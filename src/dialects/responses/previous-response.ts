import { type CallAccess, mayReadCall } from '../../access/call-access.ts';
import type { Services } from '../../completion/services.ts';
import { InvalidRequestError, SwitchyardError } from '../../errors.ts';
import { utf8Length } from '../../internal/bytes.ts';
import { REDACTED } from '../../records/call-record.ts';
import type { CompletionMessageParam } from '../../types.ts';
import { callIdOf } from './from-chat.ts';

/**
 * A `previous_response_id` that names no response the caller may continue: one this gateway never made, one whose
 * record is gone, or one made with another key. All three are the same 404 with the same message, so the answer
 * never tells whether someone else's response exists.
 */
class PreviousResponseNotFoundError extends SwitchyardError {
  override name = 'PreviousResponseNotFoundError';
  constructor(responseId: string) {
    super(
      `Previous response with id "${String(responseId).slice(0, 100)}" not found. A response is found by the key ` +
        'that made it, while its call record is kept (recording on, not aged out of the store); otherwise send ' +
        'the whole conversation as input.',
      {
        status: 404,
        type: 'invalid_request_error',
        code: 'previous_response_not_found',
        param: 'previous_response_id',
      },
    );
  }
}

/**
 * The conversation a `previous_response_id` continues, read back from the call records: the messages that call
 * sent and the answer it got. The records are the gateway's state, so this works on any model and across
 * `serve` restarts (with SQLite), as long as the record is kept whole and `access` may read it.
 *
 * `addedBytes` is the size of what the new call adds (its input and instructions): the conversation and it together
 * stay within `maxRenderedBytes`, so a chain of turns cannot grow what is sent and recorded without bound.
 */
export async function previousConversation(
  services: Services,
  responseId: string,
  access: CallAccess | undefined,
  addedBytes = 0,
  signal?: AbortSignal,
): Promise<CompletionMessageParam[]> {
  const refuse = (why: string): never => {
    throw new InvalidRequestError(
      `previous_response_id "${responseId}" cannot be continued: ${why}. Send the whole conversation as input instead.`,
      'previous_response_id',
      'previous_response_not_found',
    );
  };
  const callId = callIdOf(responseId);
  if (!callId) throw new PreviousResponseNotFoundError(responseId);
  if (typeof services.recorder.calls.get !== 'function')
    return refuse('the call-record store cannot look a call up by id');
  // The record is written off the request path: found once the calls made so far (here or in another process
  // writing the same store) are recorded.
  // Whose it is comes before anything about it: another key's response is not found, exactly as a missing one.
  const record = await services.recorder.find(callId, (found) => mayReadCall(access, found), signal);
  if (!record) throw new PreviousResponseNotFoundError(responseId);
  if (record.dialect !== 'responses') return refuse(`it was a ${record.dialect} call`);
  if (record.status !== 'ok' || !record.output) return refuse('that call did not answer');
  // A record cut to the store's text limit holds markers where the conversation was: sent on, it would not be it.
  if (record.warnings.some((warning) => warning.code === 'record_truncated'))
    return refuse('its record was stored cut short (longer than the records keep)');
  // A deployment's prompt came first, rendered: it is the deployment's instructions, given by each call that names
  // one, so it is not carried over either (else each turn would send it once more).
  const prompt = record.deployment_id ? await promptLength(services, record.deployment_id, refuse) : 0;
  const messages = (record.input_messages ?? []).slice(prompt);
  // The earlier call's `instructions` are not carried over: the new call gives its own.
  const carried = messages.filter((message) => !(message as { from_instructions?: unknown }).from_instructions);
  const sent = JSON.stringify(carried);
  if (sent.includes(`"${REDACTED}"`) || record.output.content === REDACTED) return refuse('the records are redacted');
  const { content, tool_calls: toolCalls } = record.output;
  const answer: Record<string, unknown> = { role: 'assistant', content };
  // The record keeps a custom call's input as its arguments: back to chat's form.
  if (toolCalls.length > 0)
    answer.tool_calls = toolCalls.map(({ id, type, function: call }) =>
      type === 'custom'
        ? { id, type, custom: { name: call.name, input: call.arguments } }
        : { id, type, function: call },
    );
  const bytes = utf8Length(sent) + utf8Length(JSON.stringify(answer)) + addedBytes;
  const limit = services.settings.maxRenderedBytes;
  if (bytes > limit) {
    throw new InvalidRequestError(
      `previous_response_id: the conversation it continues and this input come to ${bytes} bytes, more than the ` +
        `${limit} bytes one call may send (maxRenderedBytes). Start a new conversation, or send a shorter one ` +
        'as input.',
      'previous_response_id',
      'conversation_too_large',
    );
  }
  carried.push(answer as never);
  return carried as CompletionMessageParam[];
}

/** How many messages the prompt of the deployment an earlier call ran rendered (one for each it stores). */
async function promptLength(services: Services, deploymentId: string, refuse: (why: string) => never): Promise<number> {
  const deployment = await services.deployments?.get(deploymentId);
  if (!deployment) return refuse(`the deployment it ran, "${deploymentId}", is not found`);
  return deployment.version.messages?.length ?? 0;
}

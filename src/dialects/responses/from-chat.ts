import type { ChatCompletionTokenLogprob } from 'openai/resources/chat/completions';
import type {
  Response,
  ResponseCreateParams,
  ResponseOutputItem,
  ResponseOutputText,
  ResponseUsage,
} from 'openai/resources/responses/responses';
import type { CompletionResponse, ReasoningDetail, SwitchyardResponseInfo } from '../../types.ts';
import { type ClientToolName, clientToolName, namespacedNames } from './namespace-tools.ts';
import { encodeReasoningState } from './reasoning-state.ts';

/** A Responses API answer, with Switchyard's routing facts beside it as in chat. */
export type SwitchyardResponse = Response & { switchyard: SwitchyardResponseInfo };

/** The id of the response a call made: `resp_` and the call id, so `previous_response_id` finds its record. */
function responseId(callId: string): string {
  return `resp_${callId.replaceAll('-', '')}`;
}

/** The call id a response id stands for, or `undefined` for an id this gateway did not make. */
export function callIdOf(responseId: string): string | undefined {
  const hex = /^resp_([0-9a-f]{32})$/.exec(responseId)?.[1];
  if (!hex) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Ids of the output items of one response, distinct and stable: `<prefix>_<call id>_<n>`. */
export function itemId(prefix: 'rs' | 'msg' | 'fc' | 'ctc', callId: string, index: number): string {
  return `${prefix}_${callId.replaceAll('-', '')}_${index}`;
}

/**
 * The parts of an answer as Responses output items: reasoning, then the message, then tool calls, named as the
 * client knows its tools (`toolName`: a namespaced tool's flat name back to its namespace and name).
 */
function outputItems(
  callId: string,
  choice: CompletionResponse['choices'][number] | undefined,
  withSummary: boolean,
  toolName: (called: string) => ClientToolName,
): ResponseOutputItem[] {
  const message = choice?.message;
  const items: ResponseOutputItem[] = [];
  const reasoning = reasoningItem(callId, message?.reasoning_content, message?.reasoning_details, withSummary);
  if (reasoning) items.push(reasoning);
  const text = message?.content;
  if (text || message?.refusal) {
    items.push({
      type: 'message',
      id: itemId('msg', callId, items.length),
      role: 'assistant',
      status: 'completed',
      content: text
        ? [{ type: 'output_text', text, annotations: [], logprobs: responseLogprobs(choice?.logprobs?.content) }]
        : [{ type: 'refusal', refusal: message!.refusal! }],
    } as ResponseOutputItem);
  }
  for (const call of message?.tool_calls ?? []) {
    if (call.type === 'function') {
      items.push({
        type: 'function_call',
        id: itemId('fc', callId, items.length),
        call_id: call.id,
        ...toolName(call.function.name),
        arguments: call.function.arguments,
        status: 'completed',
      });
    } else {
      items.push({
        type: 'custom_tool_call',
        id: itemId('ctc', callId, items.length),
        call_id: call.id,
        ...toolName(call.custom.name),
        input: call.custom.input,
      });
    }
  }
  return items;
}

/**
 * The reasoning item: its summary (the provider's reasoning text, when the caller asked for summaries) and the
 * reasoning state the next turn needs, as `encrypted_content`.
 */
export function reasoningItem(
  callId: string,
  text: string | null | undefined,
  details: ReasoningDetail[] | undefined,
  withSummary: boolean,
  index = 0,
): ResponseOutputItem | undefined {
  if (!text && !details?.length) return undefined;
  return {
    type: 'reasoning',
    id: itemId('rs', callId, index),
    summary: withSummary && text ? [{ type: 'summary_text', text }] : [],
    encrypted_content: encodeReasoningState(details),
    status: 'completed',
  } as ResponseOutputItem;
}

/** A whole Response around `output`, echoing the request's settings as OpenAI does. */
export function responseObject(
  params: ResponseCreateParams,
  info: SwitchyardResponseInfo,
  output: ResponseOutputItem[],
  usage: CompletionResponse['usage'],
  finish: string | null,
  createdAt: number,
): SwitchyardResponse {
  const incomplete = finish === 'length' ? 'max_output_tokens' : finish === 'content_filter' ? 'content_filter' : null;
  const status = finish === null ? 'in_progress' : incomplete ? 'incomplete' : 'completed';
  const text = output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((part) => (part.type === 'output_text' ? part.text : ''))
    .join('');
  return {
    id: responseId(info.call_id),
    access_programs: null,
    object: 'response',
    created_at: createdAt,
    status,
    error: null,
    incomplete_details: incomplete ? { reason: incomplete } : null,
    instructions: params.instructions ?? null,
    metadata: params.metadata ?? null,
    model: info.model,
    output,
    output_text: text,
    parallel_tool_calls: params.parallel_tool_calls ?? true,
    previous_response_id: params.previous_response_id ?? null,
    reasoning: params.reasoning ?? null,
    temperature: params.temperature ?? null,
    text: params.text ?? { format: { type: 'text' } },
    tool_choice: params.tool_choice ?? 'auto',
    tools: params.tools ?? [],
    top_p: params.top_p ?? null,
    max_output_tokens: params.max_output_tokens ?? null,
    truncation: 'disabled',
    store: params.store ?? true,
    background: false,
    usage: responseUsage(usage),
    ...(params.user ? { user: params.user } : {}),
    switchyard: info,
  } as SwitchyardResponse;
}

export function chatToResponse(response: CompletionResponse, params: ResponseCreateParams): SwitchyardResponse {
  const choice = response.choices[0];
  const withSummary = params.reasoning?.summary != null;
  const names = namespacedNames(params.tools);
  const output = outputItems(response.switchyard.call_id, choice, withSummary, (called) =>
    clientToolName(names, called),
  );
  return responseObject(
    params,
    response.switchyard,
    output,
    response.usage,
    choice?.finish_reason ?? 'stop',
    response.created,
  );
}

function responseUsage(usage: CompletionResponse['usage']): ResponseUsage | undefined {
  if (!usage) return undefined;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: {
      cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
      cache_write_tokens: usage.prompt_tokens_details?.cache_write_tokens ?? 0,
    },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  };
}

/** A chat answer's token logprobs as the Responses API's (`bytes` a list, never null). */
export function responseLogprobs(
  content: readonly ChatCompletionTokenLogprob[] | null | undefined,
): ResponseOutputText.Logprob[] {
  if (!content) return [];
  return content.map(({ token, logprob, bytes, top_logprobs: top }) => ({
    token,
    logprob,
    bytes: bytes ?? [],
    top_logprobs: (top ?? []).map((other) => ({
      token: other.token,
      logprob: other.logprob,
      bytes: other.bytes ?? [],
    })),
  }));
}

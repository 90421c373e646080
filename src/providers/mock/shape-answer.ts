import type { ChatCompletionMessageToolCall, ChatCompletionTokenLogprob } from 'openai/resources/chat/completions';
import type { RequestShape } from '../provider.ts';
import type { MockMessage } from './simulator.ts';

const UTF8 = new TextEncoder();

/** One simulated choice, after the request's parameters shaped the answer. */
export interface SimulatedChoice {
  index: number;
  content: string | null;
  refusal: string | null;
  reasoning: string | undefined;
  toolCalls: ChatCompletionMessageToolCall[] | undefined;
  finishReason: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  logprobs: { content: ChatCompletionTokenLogprob[]; refusal: null } | null;
}

/** About four characters a token: the usual rule of thumb, for lengths and usage alike. */
const CHARS_PER_TOKEN = 4;
export const tokensOf = (text: string | null | undefined) => (text ? Math.ceil(text.length / CHARS_PER_TOKEN) : 0);

/**
 * The answer as a real provider would shape it for the request it was sent: so many choices, the text cut at the
 * first stop sequence, cut at the output-token limit with finish reason `length`, and token logprobs when asked
 * (synthetic but well-formed, with the alternatives asked for).
 */
export function shapeChoices(message: MockMessage, shape: RequestShape, id: string): SimulatedChoice[] {
  const { maxTokens: limit, stop: stops } = shape;
  return Array.from({ length: shape.choices }, (_, index) => {
    const toolCalls = message.tool_calls?.map((toolCall, position): ChatCompletionMessageToolCall => {
      const callId = toolCall.id ?? `call_${id.slice(-6)}_${index}_${position}`;
      if ('input' in toolCall)
        return { id: callId, type: 'custom', custom: { name: toolCall.name, input: toolCall.input } };
      const { arguments: args } = toolCall;
      return {
        id: callId,
        type: 'function',
        function: { name: toolCall.name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
      };
    });
    let content = message.refusal ? null : (message.content ?? null);
    let finishReason =
      message.finish_reason ?? (message.refusal ? 'content_filter' : toolCalls?.length ? 'tool_calls' : 'stop');
    if (content !== null) {
      const stopAt = Math.min(...stops.map((stop) => content!.indexOf(stop)).filter((at) => at >= 0));
      if (Number.isFinite(stopAt)) content = content.slice(0, stopAt);
      if (limit != null && tokensOf(content) > limit) {
        content = content.slice(0, limit * CHARS_PER_TOKEN);
        finishReason = 'length';
      }
    }
    return {
      index,
      content,
      refusal: message.refusal ?? null,
      reasoning: message.reasoning_content,
      toolCalls,
      finishReason,
      logprobs: shape.logprobs === false ? null : { content: logprobsOf(content ?? '', shape.logprobs), refusal: null },
    };
  });
}

/** Token logprobs for `text`: one entry per four characters, each with `top` alternatives. */
export function logprobsOf(text: string, top: number): ChatCompletionTokenLogprob[] {
  const entries: ChatCompletionTokenLogprob[] = [];
  for (let at = 0; at < text.length; at += CHARS_PER_TOKEN) {
    const token = text.slice(at, at + CHARS_PER_TOKEN);
    const logprob = -0.01 * ((at / CHARS_PER_TOKEN) % 7);
    const alternatives = Array.from({ length: top }, (_, rank) => ({
      token: rank === 0 ? token : `${token}${rank}`,
      logprob: rank === 0 ? logprob : logprob - rank,
      bytes: [...UTF8.encode(rank === 0 ? token : `${token}${rank}`)],
    }));
    entries.push({ token, logprob, bytes: [...UTF8.encode(token)], top_logprobs: alternatives });
  }
  return entries;
}

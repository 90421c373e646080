import {
  array,
  both,
  byType,
  nullish,
  number,
  object,
  plainObject,
  type Shape,
  string,
  tokenCount,
} from '../../internal/shape.ts';

/**
 * What an Anthropic Messages answer and each stream event must look like before they are converted: the fields the
 * conversion reads, with their documented types. Block and event types this version does not know pass, as the
 * conversion skips them.
 */

const usage: Shape = object({
  input_tokens: nullish(tokenCount),
  output_tokens: nullish(tokenCount),
  cache_creation_input_tokens: nullish(tokenCount),
  cache_read_input_tokens: nullish(tokenCount),
  output_tokens_details: nullish(object({ thinking_tokens: nullish(tokenCount) })),
});

const stopDetails: Shape = nullish(object({ category: nullish(string), explanation: nullish(string) }));

const block: Shape = byType({
  text: object({ text: string }),
  thinking: object({ thinking: string, signature: string }),
  redacted_thinking: object({ data: string }),
  tool_use: object({ id: string, name: string, input: nullish(plainObject) }),
});

export const checkMessage: Shape = object({
  id: string,
  content: array(block),
  stop_reason: nullish(string),
  stop_details: stopDetails,
  usage: both(usage, object({ output_tokens: tokenCount })),
});

export const checkStreamEvent: Shape = byType({
  message_start: object({ message: object({ id: string, usage }) }),
  content_block_start: object({
    index: number,
    content_block: byType({
      text: object({ text: string }),
      thinking: object({ thinking: string, signature: nullish(string) }),
      redacted_thinking: object({ data: string }),
      tool_use: object({ id: string, name: string, input: nullish(plainObject) }),
    }),
  }),
  content_block_delta: object({
    index: number,
    delta: byType({
      text_delta: object({ text: string }),
      thinking_delta: object({ thinking: string }),
      signature_delta: object({ signature: string }),
      input_json_delta: object({ partial_json: string }),
    }),
  }),
  content_block_stop: object({ index: number }),
  message_delta: object({ delta: object({ stop_reason: nullish(string), stop_details: stopDetails }), usage }),
});

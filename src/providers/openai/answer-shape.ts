import {
  array,
  byType,
  literal,
  nullish,
  number,
  object,
  optional,
  plainObject,
  type Shape,
  string,
  tokenCount,
} from '../../internal/shape.ts';

/**
 * What an OpenAI-family answer must look like before it is passed on: every field the gateway or its caller reads
 * has its documented type. Answers are otherwise passed through untouched, so this is the whole
 * guard between a provider's bug and the caller's code.
 */

const toolCall: Shape = byType(
  {
    function: object({ id: string, function: object({ name: string, arguments: string }) }),
    custom: object({ id: string, custom: object({ name: string, input: string }) }),
  },
  (value) => ({
    path: '.type',
    problem: `must be "function" or "custom", got ${JSON.stringify((value as { type?: unknown }).type)}`,
  }),
);

/** OpenAI's finish reasons; providers' own (Mistral's `model_length`) are mapped to these by the adapter first. */
const FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'] as const;
const finishReason = literal(...FINISH_REASONS);

const usage: Shape = object({
  prompt_tokens: tokenCount,
  completion_tokens: tokenCount,
  total_tokens: tokenCount,
  prompt_tokens_details: nullish(object({ cached_tokens: nullish(tokenCount) })),
  completion_tokens_details: nullish(object({ reasoning_tokens: nullish(tokenCount) })),
});

/** The reasoning text fields the family uses (renamed to `reasoning_content` by the adapter). */
const reasoningFields = { reasoning_content: nullish(string), reasoning: nullish(string) };

const message: Shape = object({
  role: literal('assistant'),
  content: nullish(string),
  refusal: nullish(string),
  tool_calls: nullish(array(toolCall)),
  ...reasoningFields,
});

export const checkCompletion: Shape = object({
  id: string,
  choices: array(object({ index: number, message, finish_reason: finishReason, logprobs: nullish(plainObject) }), {
    min: 1,
  }),
  created: number,
  usage: nullish(usage),
});

// Fields a delta leaves out are absent, not null, in OpenAI's stream (and in what the caller's SDK types promise).
// A custom tool's call streams its input in pieces under `custom` (Codex's apply_patch on OpenAI's models).
const toolCallDelta: Shape = object({
  index: number,
  id: optional(string),
  type: optional(literal('function', 'custom')),
  function: optional(object({ name: optional(string), arguments: optional(string) })),
  custom: optional(object({ name: optional(string), input: optional(string) })),
});

const delta: Shape = object({
  role: optional(literal('assistant')),
  content: nullish(string),
  refusal: nullish(string),
  tool_calls: nullish(array(toolCallDelta)),
  ...reasoningFields,
});

export const checkChunk: Shape = object({
  id: string,
  choices: array(
    object({ index: number, delta, finish_reason: nullish(finishReason), logprobs: nullish(plainObject) }),
  ),
  created: number,
  usage: nullish(usage),
});

/** An embeddings answer: a vector of numbers per input, with its index; usage where the provider counts it. */
export const checkEmbeddings: Shape = object({
  data: array(object({ index: number, embedding: array(number, { min: 1 }) }), { min: 1 }),
  usage: optional(object({ prompt_tokens: tokenCount })),
});

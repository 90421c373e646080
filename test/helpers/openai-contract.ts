import { z } from 'zod';

/**
 * The OpenAI chat-completion contract, written from OpenAI's API reference independently of the library's own
 * checks: what every response and stream chunk Switchyard returns must satisfy, whatever a provider sent.
 */
const finishReason = z.enum(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);

const toolCall = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

const usage = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});

export const chatCompletionContract = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number(),
  model: z.string(),
  choices: z
    .array(
      z.object({
        index: z.number().int(),
        message: z.object({
          role: z.literal('assistant'),
          content: z.string().nullable(),
          refusal: z.string().nullable().optional(),
          tool_calls: z.array(toolCall).optional(),
          reasoning_content: z.string().nullable().optional(),
        }),
        finish_reason: finishReason,
      }),
    )
    .min(1),
  usage: usage.optional(),
});

export const chatCompletionChunkContract = z.object({
  id: z.string(),
  object: z.literal('chat.completion.chunk'),
  created: z.number(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      delta: z.object({
        role: z.literal('assistant').optional(),
        content: z.string().nullable().optional(),
        refusal: z.string().nullable().optional(),
        reasoning_content: z.string().nullable().optional(),
        tool_calls: z
          .array(
            z.object({
              index: z.number().int(),
              id: z.string().optional(),
              type: z.literal('function').optional(),
              function: z.object({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
            }),
          )
          .optional(),
      }),
      finish_reason: finishReason.nullable(),
    }),
  ),
  usage: usage.nullable().optional(),
});

import type Anthropic from '@anthropic-ai/sdk';
import type { CompletionUsage } from 'openai/resources/completions';

/** Anthropic's usage in OpenAI's terms. */

export type AnthropicUsage = Pick<Anthropic.Usage, 'output_tokens'> & {
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: Anthropic.OutputTokensDetails | null;
};

export function toUsage(usage: AnthropicUsage): CompletionUsage {
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  // Anthropic's input_tokens leave out the cached part; OpenAI's prompt_tokens include it.
  const prompt = (usage.input_tokens ?? 0) + cacheWrite + cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output_tokens,
    total_tokens: prompt + usage.output_tokens,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite },
    completion_tokens_details: { reasoning_tokens: usage.output_tokens_details?.thinking_tokens ?? 0 },
  };
}

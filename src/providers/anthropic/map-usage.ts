import type Anthropic from '@anthropic-ai/sdk';
import type { CompletionUsage } from 'openai/resources/completions';

/** Anthropic's usage in OpenAI's terms. */

export type AnthropicUsage = Pick<Anthropic.Usage, 'output_tokens'> & {
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_1h_input_tokens?: number | null } | null;
  output_tokens_details?: Anthropic.OutputTokensDetails | null;
};

/** OpenAI's usage, plus the hour-long cache writes Anthropic bills apart (an extension field, like OpenRouter's). */
export type UsageWithCacheWrites = CompletionUsage & {
  prompt_tokens_details?: CompletionUsage.PromptTokensDetails & { cache_write_1h_tokens?: number };
};

export function toUsage(usage: AnthropicUsage): UsageWithCacheWrites {
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  // Anthropic's input_tokens leave out the cached part; OpenAI's prompt_tokens include it.
  const prompt = (usage.input_tokens ?? 0) + cacheWrite + cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output_tokens,
    total_tokens: prompt + usage.output_tokens,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite, ...hourLongWrites(usage) },
    completion_tokens_details: { reasoning_tokens: usage.output_tokens_details?.thinking_tokens ?? 0 },
  };
}

/** Hour-long cache writes cost 2× input, five-minute ones 1.25×: counted apart, when Anthropic says them. */
function hourLongWrites(usage: AnthropicUsage): { cache_write_1h_tokens?: number } {
  const tokens = usage.cache_creation?.ephemeral_1h_input_tokens;
  return typeof tokens === 'number' ? { cache_write_1h_tokens: tokens } : {};
}

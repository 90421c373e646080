import type { GenerateContentResponseUsageMetadata } from '@google/genai';
import type { CompletionUsage } from 'openai/resources/completions';

/** Gemini's usage metadata in OpenAI's terms. */

export function toUsage(usage: GenerateContentResponseUsageMetadata | undefined): CompletionUsage | undefined {
  if (!usage) return undefined;
  const prompt = (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0);
  const reasoning = usage.thoughtsTokenCount ?? 0;
  const completion = (usage.candidatesTokenCount ?? 0) + reasoning;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: usage.cachedContentTokenCount ?? 0 },
    completion_tokens_details: { reasoning_tokens: reasoning, ...imageTokens(usage) },
  };
}

/** The answer's image tokens (`candidatesTokensDetails`, modality IMAGE), which the catalog prices apart from text. */
function imageTokens(usage: GenerateContentResponseUsageMetadata): { image_tokens?: number } {
  const image = usage.candidatesTokensDetails?.find((detail) => detail.modality === 'IMAGE')?.tokenCount;
  return image ? { image_tokens: image } : {};
}

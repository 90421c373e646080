import type { Content, GenerateContentConfig } from '@google/genai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { withoutCacheControl } from '../prompt-cache.ts';
import type { ProviderCall } from '../provider.ts';
import { convertedFields, warnUnconverted } from '../unconverted-fields.ts';

import { toContents } from './convert-contents.ts';
import { applyTools } from './convert-tools.ts';
import { toThinkingConfig } from './thinking-config.ts';
import { applyWebSearch } from './web-search.ts';

/**
 * The OpenAI chat-completion request as Gemini `generateContent` parameters. Contents, tools and
 * thinking are converted in their own files; every dropped or converted parameter is warned about.
 */

/** Gemini accepts at most this many stop sequences. */
const MAX_STOP_SEQUENCES = 5;

/** Body fields this adapter translates (or that have no effect worth a warning when left at their default). */
const CONVERTED = convertedFields(
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'n',
  'parallel_tool_calls',
  'cached_content',
  'web_search_options',
  'modalities',
);

export interface GeminiRequest {
  model: string;
  contents: Content[];
  config: GenerateContentConfig;
}

/** The caller's OpenAI body as `generateContent` parameters; every dropped or converted parameter is warned about. */
export function toGeminiRequest(call: ProviderCall): GeminiRequest {
  const body = withoutCacheControl(call.body, 'Gemini', call.warn) as ChatCompletionCreateParamsBase &
    Record<string, unknown>;
  const config: GenerateContentConfig = {};
  // A context cache made with the Gemini API, by name; implicit cache hits need nothing and are reported in usage.
  if (typeof body.cached_content === 'string') config.cachedContent = body.cached_content;
  const { systemParts, contents } = toContents(body.messages, call);
  if (systemParts.length > 0) config.systemInstruction = { parts: systemParts };

  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens != null) config.maxOutputTokens = maxTokens;
  if (body.temperature != null) config.temperature = body.temperature;
  if (body.top_p != null) config.topP = body.top_p;
  if (body.seed != null) config.seed = body.seed;
  if (body.presence_penalty != null) config.presencePenalty = body.presence_penalty;
  if (body.frequency_penalty != null) config.frequencyPenalty = body.frequency_penalty;
  if (body.n != null && body.n !== 1) config.candidateCount = body.n;
  if (body.stop != null) {
    const stops = typeof body.stop === 'string' ? [body.stop] : body.stop;
    if (stops.length > MAX_STOP_SEQUENCES) {
      call.warn({
        code: 'converted_parameter',
        param: 'stop',
        message:
          `Gemini takes at most ${MAX_STOP_SEQUENCES} stop sequences; only the first ${MAX_STOP_SEQUENCES} ` +
          `of ${stops.length} were sent.`,
      });
    }
    if (stops.length > 0) config.stopSequences = stops.slice(0, MAX_STOP_SEQUENCES);
  }

  applyTools(body, config, call);
  applyWebSearch(call, config);
  applyResponseFormat(body, config, call);
  applyModalities(body.modalities as unknown, config, call);
  const thinking = toThinkingConfig(call);
  if (thinking) config.thinkingConfig = thinking;
  // Thinking tokens count within maxOutputTokens: a cap at or below the budget would leave no room for the answer.
  const budget = thinking?.thinkingBudget ?? 0;
  if (maxTokens != null && budget > 0 && maxTokens <= budget) {
    config.maxOutputTokens = Math.min(call.model.max_output_tokens, budget + maxTokens);
    call.warn({
      code: 'converted_parameter',
      param: 'max_tokens',
      message:
        `Gemini counts thinking within maxOutputTokens; it was raised from ${maxTokens} to ` +
        `${config.maxOutputTokens} to hold the ${budget}-token thinking budget.`,
    });
  }

  warnUnconverted(
    call,
    body,
    CONVERTED,
    (_param, value) => value === false,
    (param) => `Gemini has no equivalent of "${param}"; it was not sent.`,
  );
  return { model: body.model, contents, config };
}

/**
 * `modalities` as `responseModalities`. "image" arrives only for models flagged `image_output` (the gate drops it
 * for the rest); Gemini's chat models speak no audio through generateContent, so "audio" is dropped with a warning.
 */
function applyModalities(modalities: unknown, config: GenerateContentConfig, call: ProviderCall): void {
  if (!Array.isArray(modalities)) return;
  if (modalities.includes('audio')) {
    call.warn({
      code: 'unsupported_parameter',
      param: 'modalities',
      message: 'Gemini answers no audio in chat; "audio" was dropped from "modalities".',
    });
  }
  if (!modalities.includes('image')) return;
  config.responseModalities = modalities.includes('text') ? ['TEXT', 'IMAGE'] : ['IMAGE'];
}

function applyResponseFormat(
  body: ChatCompletionCreateParamsBase,
  config: GenerateContentConfig,
  call: ProviderCall,
): void {
  const format = body.response_format;
  if (!format || format.type === 'text') return;
  const { supports } = call.model;
  if (format.type === 'json_schema' && supports.structured_outputs) {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = format.json_schema.schema ?? { type: 'object' };
    return;
  }
  if (!supports.json_mode && !supports.structured_outputs) {
    call.warn({
      code: 'unsupported_parameter',
      param: 'response_format',
      message: `${call.model.id} has no JSON mode; response_format was not sent.`,
    });
    return;
  }
  config.responseMimeType = 'application/json';
  if (format.type === 'json_schema') {
    call.warn({
      code: 'converted_parameter',
      param: 'response_format',
      message:
        `${call.model.id} cannot enforce a JSON schema; JSON mode was used instead, so the schema is not ` +
        `guaranteed.`,
    });
  }
}

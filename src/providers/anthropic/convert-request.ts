import type Anthropic from '@anthropic-ai/sdk';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import type { ProviderCall, RequestShape } from '../provider.ts';
import { CLAUDE_REASONING_FORMAT } from '../reasoning-format.ts';
import { convertedFields, warnUnconverted } from '../unconverted-fields.ts';
import { applyReasoning } from './apply-reasoning.ts';
import { placeBreakpoints } from './cache-breakpoints.ts';
import { convertMessages, mergedSystemMessage } from './convert-messages.ts';
import { applyTools } from './convert-tools.ts';
import { claudeSampling, type Sampling, samplingApiVersion } from './sampling.ts';
import { applyWebSearch } from './web-search.ts';

/**
 * The OpenAI chat-completion request as an Anthropic Messages request (API version 2026-10-21, the one
 * `@anthropic-ai/sdk` 1.x speaks, or the model's own where it takes sampling parameters: `sampling.ts`). Messages,
 * tools and reasoning are converted in their own files.
 */

/**
 * `max_tokens` of a non-streaming call when the caller set none. Anthropic requires the field; the model's ceiling
 * (64k–128k) would let one answer run far past the per-attempt timeout, and the SDK estimates 128k tokens per hour,
 * so this is what fits in its 10-minute default (Anthropic's docs recommend streaming above it). Streams get the
 * model's ceiling.
 */
const NON_STREAMING_MAX_TOKENS = 21_333;

type Body = ChatCompletionCreateParamsBase & Record<string, unknown>;

/** The request without `stream`; the sampling parameters left the SDK's types, which speak version 2026-10-21. */
export type Params = Omit<Anthropic.MessageCreateParamsNonStreaming, 'stream'> & Sampling;

/** OpenAI fields converted below; every other field present is dropped with a warning unless it is a no-op value. */
const CONVERTED = convertedFields(
  'parallel_tool_calls',
  'user',
  'safety_identifier',
  'service_tier',
  'web_search_options',
);

const NO_OP_VALUES: Record<string, unknown> = {
  n: 1,
  logprobs: false,
  store: false,
  frequency_penalty: 0,
  presence_penalty: 0,
};

/**
 * The caller's OpenAI body as an Anthropic Messages request (without `stream`), for `provider` (`anthropic`, or
 * `vertex` for Claude there): its offering of the model says on which API version sampling parameters can be sent.
 */
export function toAnthropicRequest(call: ProviderCall, streaming: boolean, provider = 'anthropic'): Params {
  const body = call.body as Body;
  // Anthropic's API takes system messages among the turns; on Vertex AI they join the top-level system.
  const { system, messages } = convertMessages(body.messages, {
    inTurns: provider === 'anthropic',
    merged: (at) => call.warn(mergedSystemMessage(at, 'Claude on Vertex AI')),
  });
  const params: Params = { model: body.model, max_tokens: maxTokens(call, streaming), messages };
  if (system.length > 0) params.system = system;
  Object.assign(params, claudeSampling(call, samplingApiVersion(call, provider) !== undefined));
  const stops = body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
  const usable = stops.filter((stop) => stop.trim() !== '');
  if (usable.length < stops.length) {
    call.warn({
      code: 'converted_parameter',
      param: 'stop',
      message: 'Anthropic rejects whitespace-only stop sequences; they were not sent.',
    });
  }
  if (usable.length > 0) params.stop_sequences = usable;

  applyTools(call, params);
  applyWebSearch(call, params);
  const userId = body.safety_identifier ?? body.user;
  if (userId) params.metadata = { user_id: userId };
  applyResponseFormat(call, params);
  if (body.service_tier === 'auto' || body.service_tier === 'default') {
    params.service_tier = body.service_tier === 'auto' ? 'auto' : 'standard_only';
  } else if (body.service_tier != null) {
    call.warn({
      code: 'unsupported_parameter',
      param: 'service_tier',
      message: `Anthropic has no "${body.service_tier}" service tier; it was not sent.`,
    });
  }
  warnUnconverted(
    call,
    body,
    CONVERTED,
    (param, value) => NO_OP_VALUES[param] === value,
    (param) => `Anthropic has no equivalent of "${param}"; it was not sent.`,
  );
  if (call.reasoning) applyReasoning(call, params);
  placeBreakpoints(call, params);
  return params;
}

/**
 * The caller's limit (capped at the model's), or the default: the model's ceiling when streaming. For a model the
 * catalog does not list, the ceiling is a guess: the caller's limit is sent as is.
 */
function maxTokens(call: ProviderCall, streaming: boolean): number {
  const ceiling = call.model.max_output_tokens;
  const asked = call.body.max_completion_tokens ?? call.body.max_tokens;
  if (asked == null) return streaming ? ceiling : Math.min(ceiling, NON_STREAMING_MAX_TOKENS);
  if (asked <= ceiling || call.modelKnown === false) return asked;
  const param = call.body.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens';
  call.warn({
    code: 'converted_parameter',
    param,
    message: `${call.model.id} writes at most ${ceiling} tokens; ${param} ${asked} was lowered to ${ceiling}.`,
  });
  return ceiling;
}

function applyResponseFormat(call: ProviderCall, params: Params): void {
  const format = call.body.response_format;
  if (!format || format.type === 'text') return;
  if (format.type === 'json_schema' && call.model.supports.structured_outputs && format.json_schema.schema) {
    params.output_config = {
      ...params.output_config,
      format: { type: 'json_schema', schema: format.json_schema.schema },
    };
    return;
  }
  if (format.type === 'json_object') {
    // No JSON mode, and a schema-less object schema is not accepted: ask for it in the system prompt instead.
    params.system = [
      ...((params.system as Anthropic.TextBlockParam[] | undefined) ?? []),
      { type: 'text', text: JSON_OBJECT_INSTRUCTION },
    ];
    call.warn({
      code: 'converted_parameter',
      param: 'response_format',
      message: 'Anthropic has no JSON mode; the JSON answer was asked for in the system prompt.',
    });
    return;
  }
  call.warn({
    code: 'unsupported_parameter',
    param: 'response_format',
    message: `${call.model.id} has no native JSON-schema output on Anthropic; response_format was not sent.`,
  });
}

const JSON_OBJECT_INSTRUCTION = 'Answer with one JSON object only: no prose, no code fences.';

/** What a Claude request asks, in the pipeline's terms: one answer, no token logprobs, thinking in signed blocks. */
export function shapeOfAnthropicRequest(call: ProviderCall, streaming: boolean, provider = 'anthropic'): RequestShape {
  const params = toAnthropicRequest(call, streaming, provider);
  return {
    choices: 1,
    maxTokens: params.max_tokens,
    stop: params.stop_sequences ?? [],
    logprobs: false,
    reasoning: { kind: 'signed-text', format: CLAUDE_REASONING_FORMAT },
  };
}

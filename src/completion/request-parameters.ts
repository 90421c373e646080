import type { ModelSupports } from '../catalog/catalog-schema.ts';
import { InvalidRequestError } from '../errors.ts';
import type { CompletionRequest } from '../types.ts';
import { validateMessages, validateResponseFormat, validateToolChoice, validateTools } from './validate-parts.ts';

/**
 * Every request parameter, one row each: how it is checked, whether providers receive it, and which catalog flag a
 * model needs to take it. Validation, the provider-neutral body and model gating all read this table; a converter
 * maps what it knows and drops the rest with a warning. Adding a parameter: add its row here (the type below makes a
 * missing row a compile error), then teach the converters that can map it.
 */
export interface RequestParameter {
  /**
   * `sent`: an OpenAI parameter the provider receives (converted by its adapter). `ours`: read by the gateway
   * (routing, templating, reasoning, structured output, streaming) and never sent as it is.
   */
  kind: 'sent' | 'ours';
  /** Throws a 400 naming the parameter when the value is not acceptable; `null` and `undefined` never reach it. */
  check?: (value: unknown, request: Record<string, unknown>) => void;
  /** The catalog flag a model needs: without it the parameter is dropped with a warning (an error under strict). */
  gate?: keyof ModelSupports;
}

type RequestKey = keyof CompletionRequest;

export const REQUEST_PARAMETERS = {
  // The call itself.
  model: { kind: 'ours', check: (value) => modelReference(value) },
  messages: { kind: 'sent', check: (value) => validateMessages(value) },
  stream: { kind: 'ours', check: boolean('stream') },
  stream_options: { kind: 'ours', check: streamOptions },

  // Sampling and length.
  temperature: { kind: 'sent', check: numberIn('temperature', 0, 2), gate: 'temperature' },
  top_p: { kind: 'sent', check: numberIn('top_p', 0, 1), gate: 'top_p' },
  presence_penalty: { kind: 'sent', check: numberIn('presence_penalty', -2, 2) },
  frequency_penalty: { kind: 'sent', check: numberIn('frequency_penalty', -2, 2) },
  logit_bias: { kind: 'sent', check: object('logit_bias') },
  seed: { kind: 'sent', check: integer('seed', Number.MIN_SAFE_INTEGER) },
  stop: { kind: 'sent', check: stop, gate: 'stop' },
  max_tokens: { kind: 'sent', check: integer('max_tokens', 1) },
  max_completion_tokens: { kind: 'sent', check: integer('max_completion_tokens', 1) },
  n: { kind: 'sent', check: integer('n', 1, 128) },
  logprobs: { kind: 'sent', check: boolean('logprobs') },
  top_logprobs: { kind: 'sent', check: integer('top_logprobs', 0, 20) },

  // Tools and output.
  tools: { kind: 'sent', check: (value) => validateTools(value), gate: 'tools' },
  tool_choice: { kind: 'sent', check: (value, request) => validateToolChoice(value, request.tools), gate: 'tools' },
  parallel_tool_calls: { kind: 'sent', check: boolean('parallel_tool_calls'), gate: 'parallel_tool_calls' },
  functions: { kind: 'sent' },
  function_call: { kind: 'sent' },
  response_format: { kind: 'ours', check: (value) => validateResponseFormat(value) },
  modalities: { kind: 'sent' },
  audio: { kind: 'sent' },
  prediction: { kind: 'sent' },
  verbosity: { kind: 'sent', check: oneOf('verbosity', ['low', 'medium', 'high']) },
  web_search_options: { kind: 'sent' },

  // Reasoning: both forms are resolved into one provider-neutral setting.
  reasoning: { kind: 'ours', check: reasoning },
  reasoning_effort: { kind: 'ours', check: reasoningEffort },

  // OpenAI account features, passed on to providers that know them.
  store: { kind: 'sent', check: boolean('store') },
  service_tier: { kind: 'sent', check: string('service_tier') },
  prompt_cache_key: { kind: 'sent', check: string('prompt_cache_key') },
  prompt_cache_retention: { kind: 'sent', check: string('prompt_cache_retention') },
  prompt_cache_options: { kind: 'sent' },
  // Gemini's context cache by name (its own field, not OpenAI's); other providers drop it with a warning.
  cached_content: { kind: 'sent', check: string('cached_content', 'the name of a Gemini context cache') },
  safety_identifier: { kind: 'sent', check: string('safety_identifier') },
  user: { kind: 'sent', check: string('user') },
  moderation: { kind: 'sent' },

  // Switchyard's own.
  metadata: { kind: 'ours', check: metadata },
  input: { kind: 'ours' },
  fallbacks: { kind: 'ours', check: stringArray('fallbacks', 'an array of model ids') },
  structured_output_fallback: { kind: 'ours', check: string('structured_output_fallback', 'a model id') },
  tool_call_validation: {
    kind: 'ours',
    check: (value) => {
      if (value !== 'warn' && value !== 'error' && value !== 'off')
        fail('"tool_call_validation" must be "warn", "error" or "off".', 'tool_call_validation');
    },
  },
  prompt_cache: {
    kind: 'ours',
    check: (value) => {
      if (value !== 'auto' && value !== false) fail('"prompt_cache" must be "auto" or false.', 'prompt_cache');
    },
  },
} satisfies Record<RequestKey, RequestParameter>;

const ROWS: ReadonlyMap<string, RequestParameter> = new Map(Object.entries(REQUEST_PARAMETERS));

/** The row of a parameter, or `undefined` for a key that is not a request parameter. */
export function parameterRow(name: string): RequestParameter | undefined {
  return ROWS.get(name);
}

/** Parameters that reach providers: the rows of kind `sent`. */
export const SENT_PARAMETERS: readonly string[] = [...ROWS]
  .filter(([, row]) => row.kind === 'sent')
  .map(([name]) => name);

/** Parameters a catalog flag can rule out, with the flag. */
export const GATED_PARAMETERS: ReadonlyArray<[string, keyof ModelSupports]> = [...ROWS].flatMap(([name, row]) =>
  row.gate ? [[name, row.gate] as [string, keyof ModelSupports]] : [],
);

// ---------------------------------------------------------------------------------------------------------------
// Checks

export const EFFORTS = ['disabled', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
/** `reasoning_effort` as OpenAI clients send it (openai-node's `ReasoningEffort`). */
export const OPENAI_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

function modelReference(value: unknown): void {
  if (typeof value !== 'string' || value.trim() === '') {
    fail(
      '"model" is required: a model id such as "gpt-4o-latest" (listModels() lists them) or ' +
        '"switchyard/deployment/<id>".',
      'model',
    );
  }
}

function numberIn(param: string, min: number, max: number) {
  return (value: unknown) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
      fail(`"${param}" must be a number from ${min} to ${max} (got ${JSON.stringify(value)}).`, param);
    }
  };
}

function integer(param: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: unknown) => {
    if (Number.isInteger(value) && (value as number) >= min && (value as number) <= max) return;
    const range =
      min === Number.MIN_SAFE_INTEGER ? '' : max === Number.MAX_SAFE_INTEGER ? ` ≥ ${min}` : ` from ${min} to ${max}`;
    fail(`"${param}" must be a whole number${range} (got ${JSON.stringify(value)}).`, param);
  };
}

function boolean(param: string) {
  return (value: unknown) => {
    if (typeof value !== 'boolean') fail(`"${param}" must be true or false (got ${JSON.stringify(value)}).`, param);
  };
}

function string(param: string, what = 'a string') {
  return (value: unknown) => {
    if (typeof value !== 'string') fail(`"${param}" must be ${what}.`, param);
  };
}

function stringArray(param: string, what: string) {
  return (value: unknown) => {
    if (!isStringArray(value)) fail(`"${param}" must be ${what}.`, param);
  };
}

function object(param: string) {
  return (value: unknown) => {
    if (!isObject(value)) fail(`"${param}" must be an object.`, param);
  };
}

function oneOf(param: string, allowed: readonly string[]) {
  return (value: unknown) => {
    if (!allowed.includes(value as string))
      fail(`"${param}" must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)}).`, param);
  };
}

function stop(value: unknown): void {
  if (typeof value !== 'string' && !isStringArray(value))
    fail('"stop" must be a string or an array of strings.', 'stop');
}

function streamOptions(value: unknown): void {
  if (!isObject(value)) fail('"stream_options" must be an object such as { "include_usage": true }.', 'stream_options');
  const include = value.include_usage;
  if (include != null && typeof include !== 'boolean') {
    fail(
      `"stream_options.include_usage" must be true or false (got ${JSON.stringify(include)}).`,
      'stream_options.include_usage',
    );
  }
}

function metadata(value: unknown): void {
  if (!isObject(value)) fail('"metadata" must be an object of string values.', 'metadata');
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') fail(`metadata.${key} must be a string (got ${typeof item}).`, `metadata.${key}`);
  }
}

function reasoningEffort(value: unknown): void {
  if (!(OPENAI_EFFORTS as readonly unknown[]).includes(value)) {
    fail(
      `reasoning_effort must be one of ${OPENAI_EFFORTS.join(', ')} (got ${JSON.stringify(value)}). ` +
        'To set a token budget use reasoning: { budget: <tokens> }.',
      'reasoning_effort',
    );
  }
}

function reasoning(value: unknown): void {
  const shape = `{ budget: <tokens> } or { effort: ${EFFORTS.map((effort) => `"${effort}"`).join(' | ')} }`;
  if (!isObject(value)) fail(`"reasoning" must be ${shape}.`, 'reasoning');
  const hasBudget = value.budget !== undefined;
  const hasEffort = value.effort !== undefined;
  if (hasBudget && hasEffort) fail('reasoning takes either "budget" or "effort", not both.', 'reasoning');
  if (!hasBudget && !hasEffort)
    fail(`"reasoning" needs "budget" (tokens) or "effort" (${EFFORTS.join(', ')}).`, 'reasoning');
  for (const key of Object.keys(value)) {
    if (key !== 'budget' && key !== 'effort')
      fail(`Unknown field reasoning.${key}; reasoning takes "budget" or "effort".`, `reasoning.${key}`);
  }
  if (hasBudget && !(Number.isInteger(value.budget) && (value.budget as number) >= 0)) {
    fail(
      `reasoning.budget must be a whole number of tokens ≥ 0 (got ${JSON.stringify(value.budget)}).`,
      'reasoning.budget',
    );
  }
  if (hasEffort && !(EFFORTS as readonly unknown[]).includes(value.effort)) {
    fail(
      `reasoning.effort must be one of ${EFFORTS.join(', ')} (got ${JSON.stringify(value.effort)}).`,
      'reasoning.effort',
    );
  }
}

// biome-ignore lint/suspicious/noExplicitAny: validation reads the caller's untyped JSON, checking each field it uses.
export function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

export function fail(message: string, param: string | null): never {
  throw new InvalidRequestError(message, param);
}

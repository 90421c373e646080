import type { ModelSupports } from '../catalog/catalog-schema.ts';
import type { CompletionRequest, CompletionRequestBase } from '../types.ts';
import {
  boolean,
  fail,
  hedge,
  integer,
  metadata,
  modelReference,
  numberIn,
  object,
  oneOf,
  someOf,
  stop,
  streamOptions,
  string,
  stringArray,
  webSearchOptions,
} from './parameter-checks.ts';
import { reasoning, reasoningEffort } from './reasoning-checks.ts';
import type { FieldNotes } from './unknown-fields.ts';
import { validateMessages, validateResponseFormat, validateToolChoice, validateTools } from './validate-parts.ts';

/**
 * Every request parameter, one row each: how it is checked, whether providers receive it, which catalog flag a model
 * needs to take it, whether a deployment may store it, which provider API alone knows it, and which dialects carry
 * it under the same name. Request and deployment validation (and the `DeploymentVersion` type), the
 * provider-neutral body, model gating, the OpenAI-only list and the dialects' copied fields are all read from it.
 * Adding a parameter: add its row here (the type below makes a missing row a compile error), then teach the
 * converters that can map it.
 */
export interface RequestParameter {
  /**
   * `sent`: an OpenAI parameter the provider receives (converted by its adapter). `ours`: read by the gateway
   * (routing, templating, reasoning, structured output, streaming) and never sent as it is.
   */
  kind: 'sent' | 'ours';
  /**
   * Throws a 400 naming the parameter when the value is not acceptable; `null` and `undefined` never reach it. A
   * field it does not know inside the value is told to `notes` (`unknown-fields.ts`).
   */
  check?: (value: unknown, request: Record<string, unknown>, notes?: FieldNotes) => void;
  /** The catalog flag a model needs: without it the parameter is dropped with a warning (an error under strict). */
  gate?: keyof ModelSupports;
  /**
   * Whether a deployment version may store it, checked by `check`. `false` for what belongs to one call (stream,
   * metadata, input, the end user) and for what a deployment holds in fields of its own (model, messages).
   */
  deployable: boolean;
  /** The one provider API that knows it: the other providers (of the OpenAI family too) drop it with a warning. */
  onlyIn?: 'openai' | 'google';
  /** The dialects whose requests hold it under the same name and meaning: their translation copies it as it is. */
  dialects?: readonly Dialect[];
}

/** The request dialects translated into chat completions. */
export type Dialect = 'responses' | 'messages';

const EVERY_DIALECT: readonly Dialect[] = ['responses', 'messages'];
const RESPONSES: readonly Dialect[] = ['responses'];

type RequestKey = keyof CompletionRequest;

export { EFFORTS, OPENAI_EFFORTS } from '../reasoning.ts';

export const REQUEST_PARAMETERS = {
  // The call itself.
  model: { kind: 'ours', deployable: false, check: (value) => modelReference(value) },
  messages: { kind: 'sent', deployable: false, check: (value, _request, notes) => validateMessages(value, notes) },
  stream: { kind: 'ours', deployable: false, check: boolean('stream') },
  stream_options: { kind: 'ours', deployable: false, check: (value, _request, notes) => streamOptions(value, notes) },

  // Sampling and length.
  temperature: {
    kind: 'sent',
    deployable: true,
    check: numberIn('temperature', 0, 2),
    gate: 'temperature',
    dialects: EVERY_DIALECT,
  },
  top_p: { kind: 'sent', deployable: true, check: numberIn('top_p', 0, 1), gate: 'top_p', dialects: EVERY_DIALECT },
  presence_penalty: { kind: 'sent', deployable: true, check: numberIn('presence_penalty', -2, 2) },
  frequency_penalty: { kind: 'sent', deployable: true, check: numberIn('frequency_penalty', -2, 2) },
  logit_bias: { kind: 'sent', deployable: true, check: object('logit_bias') },
  seed: { kind: 'sent', deployable: true, check: integer('seed', Number.MIN_SAFE_INTEGER) },
  stop: { kind: 'sent', deployable: true, check: stop, gate: 'stop' },
  max_tokens: { kind: 'sent', deployable: true, check: integer('max_tokens', 1) },
  max_completion_tokens: { kind: 'sent', deployable: true, check: integer('max_completion_tokens', 1) },
  n: { kind: 'sent', deployable: true, check: integer('n', 1, 128) },
  logprobs: { kind: 'sent', deployable: true, check: boolean('logprobs') },
  top_logprobs: { kind: 'sent', deployable: true, check: integer('top_logprobs', 0, 20) },

  // Tools and output.
  tools: {
    kind: 'sent',
    deployable: true,
    check: (value, _request, notes) => validateTools(value, notes),
    gate: 'tools',
  },
  tool_choice: {
    kind: 'sent',
    deployable: true,
    check: (value, request, notes) => validateToolChoice(value, request.tools, notes),
    gate: 'tools',
  },
  parallel_tool_calls: {
    kind: 'sent',
    deployable: true,
    check: boolean('parallel_tool_calls'),
    gate: 'parallel_tool_calls',
    dialects: RESPONSES,
  },
  functions: { kind: 'sent', deployable: true },
  function_call: { kind: 'sent', deployable: true },
  response_format: {
    kind: 'ours',
    deployable: true,
    check: (value, _request, notes) => validateResponseFormat(value, notes),
  },
  // "image" reaches only models flagged `image_output` (Gemini's image models); the rest drop it with a warning.
  modalities: {
    kind: 'sent',
    deployable: true,
    check: someOf('modalities', ['text', 'audio', 'image']),
    onlyIn: 'openai',
  },
  audio: { kind: 'sent', deployable: true, onlyIn: 'openai' },
  prediction: { kind: 'sent', deployable: true, onlyIn: 'openai' },
  verbosity: { kind: 'sent', deployable: true, check: oneOf('verbosity', ['low', 'medium', 'high']), onlyIn: 'openai' },
  web_search_options: { kind: 'sent', deployable: true, check: webSearchOptions, onlyIn: 'openai' },

  // Reasoning: both forms are resolved into one provider-neutral setting.
  reasoning: { kind: 'ours', deployable: true, check: reasoning },
  reasoning_effort: { kind: 'ours', deployable: true, check: reasoningEffort },

  // OpenAI account features, passed on to providers that know them.
  store: { kind: 'sent', deployable: true, check: boolean('store'), onlyIn: 'openai' },
  service_tier: {
    kind: 'sent',
    deployable: true,
    check: string('service_tier'),
    onlyIn: 'openai',
    dialects: RESPONSES,
  },
  prompt_cache_key: {
    kind: 'sent',
    deployable: true,
    check: string('prompt_cache_key'),
    onlyIn: 'openai',
    dialects: RESPONSES,
  },
  prompt_cache_retention: {
    kind: 'sent',
    deployable: true,
    check: string('prompt_cache_retention'),
    onlyIn: 'openai',
    dialects: RESPONSES,
  },
  prompt_cache_options: { kind: 'sent', deployable: true, onlyIn: 'openai' },
  // Gemini's context cache by name (its own field, not OpenAI's); other providers drop it with a warning.
  cached_content: {
    kind: 'sent',
    deployable: true,
    check: string('cached_content', 'the name of a Gemini context cache'),
    onlyIn: 'google',
  },
  // The end user of one call.
  safety_identifier: {
    kind: 'sent',
    deployable: false,
    check: string('safety_identifier'),
    onlyIn: 'openai',
    dialects: RESPONSES,
  },
  user: { kind: 'sent', deployable: false, check: string('user'), dialects: RESPONSES },
  moderation: { kind: 'sent', deployable: true, onlyIn: 'openai' },

  // Switchyard's own.
  metadata: { kind: 'ours', deployable: false, check: metadata, dialects: RESPONSES },
  input: { kind: 'ours', deployable: false },
  fallbacks: {
    kind: 'ours',
    deployable: true,
    check: stringArray('fallbacks', 'an array of model ids'),
    dialects: EVERY_DIALECT,
  },
  fallback_on: {
    kind: 'ours',
    deployable: true,
    check: someOf('fallback_on', ['content_filter', 'refusal']),
    dialects: EVERY_DIALECT,
  },
  routing: {
    kind: 'ours',
    deployable: true,
    check: oneOf('routing', ['order', 'cost', 'latency']),
    dialects: EVERY_DIALECT,
  },
  hedge: { kind: 'ours', deployable: true, check: hedge, dialects: EVERY_DIALECT },
  stream_failover: { kind: 'ours', deployable: true, check: boolean('stream_failover'), dialects: EVERY_DIALECT },
  structured_output_fallback: {
    kind: 'ours',
    deployable: true,
    check: string('structured_output_fallback', 'a model id'),
    dialects: EVERY_DIALECT,
  },
  tool_call_validation: {
    kind: 'ours',
    deployable: true,
    check: (value) => {
      if (value !== 'warn' && value !== 'error' && value !== 'off')
        fail('"tool_call_validation" must be "warn", "error" or "off".', 'tool_call_validation');
    },
  },
  prompt_cache: {
    kind: 'ours',
    deployable: true,
    check: (value) => {
      if (value !== 'auto' && value !== false) fail('"prompt_cache" must be "auto" or false.', 'prompt_cache');
    },
    dialects: EVERY_DIALECT,
  },
  cache: {
    kind: 'ours',
    deployable: true,
    check: oneOf('cache', ['auto', 'always', 'never']),
    dialects: EVERY_DIALECT,
  },
  // Only ever tightens: the strictest of the request's, the deployment's, the key's and the gateway's applies.
  sensitive_data: {
    kind: 'ours',
    deployable: true,
    check: oneOf('sensitive_data', ['off', 'mask', 'block']),
    dialects: EVERY_DIALECT,
  },
} satisfies Record<RequestKey, RequestParameter>;

/** The parameter table as the validators take it: a test may build them from a table with a row added. */
export type ParameterTable = Readonly<Record<string, RequestParameter>>;

type Rows = typeof REQUEST_PARAMETERS;

/** The parameters a deployment version may store (the rows with `deployable: true`). */
export type DeployableParameter = {
  [Key in keyof Rows]: Rows[Key]['deployable'] extends true ? Key : never;
}[keyof Rows];

/** The settings a deployment version stores, typed as the request types them (never `null`). */
export type DeployableSettings = { [Key in DeployableParameter]?: NonNullable<CompletionRequestBase[Key]> };

const ROWS: ReadonlyMap<string, RequestParameter> = new Map(Object.entries(REQUEST_PARAMETERS));

const namesWhere = (keep: (row: RequestParameter) => boolean): readonly string[] =>
  [...ROWS].filter(([, row]) => keep(row)).map(([name]) => name);

/** Parameters that reach providers: the rows of kind `sent`. */
export const SENT_PARAMETERS = namesWhere((row) => row.kind === 'sent');

/** Parameters only one provider API knows (the table's `onlyIn`); that provider's folder reads its own list. */
export function parametersOnlyIn(api: NonNullable<RequestParameter['onlyIn']>): readonly string[] {
  return namesWhere((row) => row.onlyIn === api);
}

/** Parameters that some other provider API alone knows: a provider of `api`'s family never takes them. */
export function parametersOfOtherApis(api: NonNullable<RequestParameter['onlyIn']>): readonly string[] {
  return namesWhere((row) => row.onlyIn !== undefined && row.onlyIn !== api);
}

/** The rows a dialect's request holds under the same name and meaning, copied into the chat request as they are. */
export function sameNamedParameters(dialect: Dialect): ReadonlyArray<[string, RequestParameter]> {
  return dialect === 'responses' ? SAME_IN_RESPONSES : SAME_IN_MESSAGES;
}
const SAME_IN_RESPONSES = [...ROWS].filter(([, row]) => row.dialects?.includes('responses'));
const SAME_IN_MESSAGES = [...ROWS].filter(([, row]) => row.dialects?.includes('messages'));

/** Parameters a catalog flag can rule out, with the flag. */
export const GATED_PARAMETERS: ReadonlyArray<[string, keyof ModelSupports]> = [...ROWS].flatMap(([name, row]) =>
  row.gate ? [[name, row.gate] as [string, keyof ModelSupports]] : [],
);

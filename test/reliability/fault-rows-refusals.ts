import {
  AuthenticationError,
  InvalidRequestError,
  MissingCredentialsError,
  ModelNotFoundError,
  ProviderError,
} from '../../src/index.ts';
import { FALLBACK, type FaultRow, greeting, statusFault } from './fault-rows.ts';
import type { Fault } from './faulty-server.ts';
import { KEYS, MODELS, type ProviderName } from './harness.ts';

/**
 * Rows of the fault matrix (fault-rows.ts) where the call is refused: a request that is wrong before any provider
 * is called, a provider that refuses the key, the model or the schema, a provider without credentials.
 */

/** Schemas no provider should be sent: each a 400 naming where in the schema it is wrong. */
export const INVALID_SCHEMAS = [
  { type: 'object', properties: { answer: { type: 'no-such-type' } } },
  { $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' },
  { $async: true, type: 'object' },
  { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
  { type: 'object', properties: { a: { $ref: 'https://example.com/remote.json' } } },
  { type: 'object', required: 'answer' },
];

/** A schema each provider rejects natively, as it structures that: OpenAI's param and code, the field path opening
 * Anthropic's message, and Google's BadRequest field violation. */
const schemaRejected: Record<ProviderName, Fault> = {
  openai: statusFault(
    'openai',
    400,
    "Invalid schema for response_format 'answer': In context=(), 'format' is not permitted.",
    {
      type: 'invalid_request_error',
      param: 'response_format',
      code: 'invalid_json_schema',
    },
  ),
  anthropic: statusFault('anthropic', 400, 'output_config.format.schema: The keyword "format" is not supported.', {
    type: 'invalid_request_error',
  }),
  google: statusFault(
    'google',
    400,
    'Invalid JSON payload received. Unknown name "format" at ' +
      'generation_config.response_json_schema.properties[0].value',
    { googleStatus: 'INVALID_ARGUMENT', field: 'generation_config.response_json_schema.properties[0].value' },
  ),
};
/** 401s quoting the key (Gemini says it with a 400 API_KEY_INVALID). */
const badKey: Record<ProviderName, Fault> = {
  openai: statusFault(
    'openai',
    401,
    `Incorrect API key provided: ${KEYS.openai}. You can find your API key at ` +
      'https://platform.openai.com/account/api-keys.',
    { type: 'invalid_request_error', code: 'invalid_api_key' },
  ),
  anthropic: statusFault('anthropic', 401, `invalid x-api-key: ${KEYS.anthropic}`, { type: 'authentication_error' }),
  google: statusFault('google', 400, `API key not valid. Please pass a valid API key. (${KEYS.google})`, {
    googleStatus: 'INVALID_ARGUMENT',
    reason: 'API_KEY_INVALID',
  }),
};
/** Ids one character away from a catalog model's. */
const UNKNOWN: Record<ProviderName, string> = {
  openai: 'gpt-4o-2024-11-21',
  anthropic: 'claude-haiku-4-5-20251002',
  google: 'gemini-2.5-flesh',
};
const upstream404: Record<ProviderName, Fault> = {
  openai: statusFault('openai', 404, `The model \`${MODELS.openai}\` does not exist or you do not have access to it.`, {
    type: 'invalid_request_error',
    code: 'model_not_found',
  }),
  anthropic: statusFault('anthropic', 404, `model: ${MODELS.anthropic}`, { type: 'not_found_error' }),
  google: statusFault(
    'google',
    404,
    `models/${MODELS.google} is not found for API version v1beta, or is not supported for generateContent.`,
    { googleStatus: 'NOT_FOUND' },
  ),
};
const VARIABLE: Record<ProviderName, string> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  google: 'GEMINI_API_KEY',
};
/** A JSON answer in each fake's own reply shape. */
const jsonReply: Record<ProviderName, (json: string) => unknown> = {
  openai: (json) => ({ content: json }),
  anthropic: (json) => ({ content: [{ type: 'text', text: json }] }),
  google: (json) => ({ text: json }),
};

export function refusalRows(provider: ProviderName): FaultRow[] {
  const other = FALLBACK[provider];
  return [
    ...INVALID_SCHEMAS.map(
      (schema): FaultRow => ({
        name: `invalid response_format schema ${JSON.stringify(schema)}: 400 before any provider is called`,
        provider,
        faults: [],
        request: { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } } },
        expected: {
          kind: 'error',
          error: InvalidRequestError,
          status: 400,
          type: 'invalid_request_error',
          code: 'invalid_schema',
          param: /^response_format\.json_schema\.schema/,
          requests: 0,
        },
      }),
    ),
    {
      name: 'a schema the provider rejects natively goes into the prompt instead, with a warning',
      provider,
      faults: [schemaRejected[provider]],
      replies: () => jsonReply[provider]('{"answer":"hello"}'),
      request: {
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'answer',
            schema: {
              type: 'object',
              properties: { answer: { type: 'string', format: 'hostname' } },
              required: ['answer'],
            },
          },
        },
      },
      expected: {
        kind: 'answer',
        content: '{"answer":"hello"}',
        parsed: { answer: 'hello' },
        warning: { code: 'converted_parameter', param: 'response_format' },
        requests: 2,
      },
    },
    {
      name: 'bad provider key: 401, neither retried nor handed to the fallback, the key not repeated',
      provider,
      faults: [badKey[provider]],
      request: { fallbacks: [MODELS[other]] },
      expected: {
        kind: 'error',
        error: AuthenticationError,
        status: 401,
        type: 'authentication_error',
        provider,
        retryable: false,
        never: [KEYS[provider]],
        attempts: [`${provider}:401`],
        requests: 1,
        fallbackRequests: 0,
      },
    },
    ...[UNKNOWN[provider], `my-agent/${UNKNOWN[provider]}`].map(
      (model): FaultRow => ({
        name: `unknown id ${model}: 404 model_not_found with suggestions, before any request`,
        provider,
        faults: [],
        request: { model },
        expected: {
          kind: 'error',
          error: ModelNotFoundError,
          status: 404,
          code: 'model_not_found',
          param: 'model',
          suggests: MODELS[provider],
          requests: 0,
        },
      }),
    ),
    {
      name: 'a catalog model the provider does not know: its 404, not retried',
      provider,
      faults: [upstream404[provider]],
      expected: {
        kind: 'error',
        error: ProviderError,
        status: 404,
        provider,
        retryable: false,
        attempts: [`${provider}:404`],
        requests: 1,
      },
    },
    {
      name: 'an id outside the catalog, named with its provider: sent as written, the provider’s 404 comes back',
      provider,
      faults: [upstream404[provider]],
      request: { model: `${provider}/${UNKNOWN[provider]}` },
      expected: { kind: 'error', error: ProviderError, status: 404, provider, retryable: false, requests: 1 },
    },
    {
      name: `without credentials: 503 provider_not_configured naming ${VARIABLE[provider]}`,
      provider,
      faults: [],
      gateway: { withoutCredentials: true },
      expected: {
        kind: 'error',
        error: MissingCredentialsError,
        status: 503,
        type: 'server_error',
        code: 'provider_not_configured',
        says: [VARIABLE[provider]],
        attempts: [`${provider}:missing_credentials`],
        requests: 0,
      },
    },
    {
      name: 'without credentials, with a fallback that has them: the fallback answers',
      provider,
      faults: [],
      gateway: { withoutCredentials: true },
      request: { fallbacks: [MODELS[other]] },
      expected: {
        kind: 'answer',
        content: greeting(other),
        provider: other,
        attempts: [`${provider}:missing_credentials`, `${other}:ok`],
        requests: 0,
      },
    },
  ];
}

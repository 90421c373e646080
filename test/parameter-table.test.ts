import { describe, expect, expectTypeOf, it } from 'vitest';
import type { DeploymentVersion } from '../src/deployments/index.ts';
import { deploymentValidator } from '../src/deployments/validate-deployment.ts';
import { messagesToChat } from '../src/dialects/messages/to-chat.ts';
import { responsesToChat } from '../src/dialects/responses/to-chat.ts';
import { validateDeployment } from '../src/index.ts';
import { integer } from '../src/request/parameter-checks.ts';
import {
  type DeployableParameter,
  EFFORTS,
  OPENAI_EFFORTS,
  parametersOfOtherApis,
  parametersOnlyIn,
  REQUEST_PARAMETERS,
  type RequestParameter,
} from '../src/request/request-parameters.ts';
import { requestValidator, validateRequest } from '../src/request/validate-request.ts';
import { makeDeployment } from './deployments/fixtures.ts';
import { gatewayAgainst, useFakeOpenAIServer } from './helpers/openai-env.ts';

/**
 * The parameter table is the one list of request parameters: request validation, deployment validation and the
 * lists read elsewhere (the OpenAI-only parameters, the effort levels) all come from its rows.
 */
const server = await useFakeOpenAIServer();
const hello = [{ role: 'user' as const, content: 'hi' }];

/** The message of what `run` throws. */
function thrown(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('nothing was thrown');
}

describe('adding a parameter is one row', () => {
  const topK: RequestParameter = { kind: 'sent', deployable: true, check: integer('top_k', 1) };
  const table = { ...REQUEST_PARAMETERS, top_k: topK };
  const checkRequest = requestValidator(table);
  const checkDeployment = deploymentValidator(table);

  it('request validation takes it, and checks its value with the row', () => {
    expect(() => checkRequest({ model: 'gpt-4o-latest', messages: hello, top_k: 40 })).not.toThrow();
    expect(thrown(() => checkRequest({ model: 'gpt-4o-latest', messages: hello, top_k: 0 }))).toBe(
      '"top_k" must be a whole number ≥ 1 (got 0).',
    );
    expect(thrown(() => validateRequest({ model: 'gpt-4o-latest', messages: hello, top_k: 40 }))).toContain(
      'Unrecognized request parameter "top_k"',
    );
  });

  it('deployment validation takes it as a setting, checked by the same row', () => {
    const record = makeDeployment({}, { top_k: 40 } as Partial<DeploymentVersion>);
    expect(checkDeployment(record, 'src')).toEqual(record);
    const bad = makeDeployment({}, { top_k: 0 } as Partial<DeploymentVersion>);
    expect(thrown(() => checkDeployment(bad, 'src'))).toBe(
      'src: version.top_k: "top_k" must be a whole number ≥ 1 (got 0).',
    );
    expect(thrown(() => validateDeployment(record, 'src'))).toBe('src: version.top_k: unknown field');
  });

  it('a row that is not deployable is a request parameter only', () => {
    const perCall = { ...table, top_k: { ...topK, deployable: false } };
    expect(() => requestValidator(perCall)({ model: 'gpt-4o-latest', messages: hello, top_k: 40 })).not.toThrow();
    const record = makeDeployment({}, { top_k: 40 } as Partial<DeploymentVersion>);
    expect(thrown(() => deploymentValidator(perCall)(record, 'src'))).toBe('src: version.top_k: unknown field');
  });
});

describe('deployments store the deployable rows', () => {
  it('and only them: the per-call parameters are unknown fields of a version', () => {
    const perCall = Object.entries(REQUEST_PARAMETERS).filter(([, row]) => !row.deployable);
    expect(perCall.map(([name]) => name).sort()).toEqual(
      ['input', 'messages', 'metadata', 'model', 'safety_identifier', 'stream', 'stream_options', 'user'].sort(),
    );
    const record = makeDeployment({}, { stream: true, user: 'u1' } as Partial<DeploymentVersion>);
    expect(thrown(() => validateDeployment(record, 'src'))).toBe(
      'src: version.stream: unknown field\nsrc: version.user: unknown field',
    );
  });

  it('take every effort a request takes, and refuse the same values', () => {
    for (const effort of EFFORTS) {
      const record = makeDeployment({}, { reasoning: { effort } });
      expect(validateDeployment(record, 'src')).toEqual(record);
    }
    for (const effort of OPENAI_EFFORTS) {
      const record = makeDeployment({}, { reasoning_effort: effort });
      expect(validateDeployment(record, 'src')).toEqual(record);
    }
    const request = { model: 'gpt-4o-latest', messages: hello, reasoning: { effort: 'extreme' } };
    const deployment = makeDeployment({}, { reasoning: { effort: 'extreme' } } as never);
    expect(thrown(() => validateDeployment(deployment, 'src'))).toBe(
      `src: version.reasoning.effort: ${thrown(() => validateRequest(request))}`,
    );
  });

  it('refuse null and an output schema beside a response format', () => {
    const record = makeDeployment({}, {
      temperature: null,
      output_schema: { json_schema: { type: 'object' } },
      response_format: { type: 'json_object' },
    } as never);
    expect(thrown(() => validateDeployment(record, 'src'))).toBe(
      'src: version.temperature: must not be null (leave the field out)\nsrc: version.response_format: a ' +
        'version has "output_schema" or "response_format", not both',
    );
  });

  it('type a version with exactly those settings', () => {
    type Settings = Exclude<keyof DeploymentVersion, 'model' | 'messages' | 'output_schema'>;
    expectTypeOf<Settings>().toEqualTypeOf<DeployableParameter>();
    expectTypeOf<'temperature' | 'response_format' | 'fallbacks'>().toExtend<DeployableParameter>();
    expectTypeOf<'stream' extends DeployableParameter ? true : false>().toEqualTypeOf<false>();
  });
});

describe('the effort levels are written once', () => {
  it("OpenAI's are openai-node's, and the levels of ours", () => {
    expectTypeOf<(typeof OPENAI_EFFORTS)[number]>().toEqualTypeOf<
      NonNullable<import('openai/resources/shared').ReasoningEffort>
    >();
    expect(OPENAI_EFFORTS).toEqual(['none', ...EFFORTS.filter((effort) => effort !== 'disabled')]);
  });
});

describe('the parameters of one provider API', () => {
  const values: Record<string, unknown> = {
    store: true,
    service_tier: 'auto',
    prediction: { type: 'content', content: 'hi' },
    modalities: ['text'],
    audio: { voice: 'alloy', format: 'mp3' },
    web_search_options: {},
    verbosity: 'low',
    prompt_cache_key: 'key',
    prompt_cache_options: {},
    prompt_cache_retention: '24h',
    safety_identifier: 'someone',
    moderation: {},
    cached_content: 'cachedContents/abc',
  };

  it('are dropped, with a warning each, by the providers of the OpenAI family that do not know them', async () => {
    const named = [...parametersOnlyIn('openai'), ...parametersOfOtherApis('openai')];
    expect(Object.keys(values).sort()).toEqual([...named].sort());
    const response = await gatewayAgainst(server.url).createCompletion({
      model: 'openrouter/gpt-4o-2024-11-20',
      messages: hello,
      ...values,
    } as never);
    const sent = server.requests.at(-1)!.body;
    for (const param of named) expect(sent, param).not.toHaveProperty(param);
    const dropped = response.switchyard.warnings.filter((warning) => warning.code === 'unsupported_parameter');
    expect(dropped.map((warning) => warning.param).sort()).toEqual([...named].sort());
  });

  it("reach OpenAI, but for another API's", async () => {
    // A search model: OpenAI's chat API searches with those alone (for the others web_search_options is dropped).
    const model = 'openai/gpt-4o-search-preview';
    await gatewayAgainst(server.url).createCompletion({ model, messages: hello, ...values } as never);
    const sent = server.requests.at(-1)!.body;
    for (const param of parametersOnlyIn('openai')) expect(sent, param).toHaveProperty(param);
    for (const param of parametersOfOtherApis('openai')) expect(sent, param).not.toHaveProperty(param);
  });
});

describe("the dialects' fields of chat's names", () => {
  const same = {
    temperature: 0.5,
    top_p: 0.9,
    fallbacks: ['gpt-4o-latest'],
    structured_output_fallback: 'gpt-4o-latest',
    prompt_cache: 'auto',
  };

  it('are the rows that name the dialect, copied as they are', () => {
    const responses = { parallel_tool_calls: false, user: 'u1', service_tier: 'flex', prompt_cache_key: 'k' };
    const { request } = responsesToChat({ model: 'gpt-4o-latest', input: 'hi', ...same, ...responses } as never);
    expect(request).toMatchObject({ ...same, ...responses });
    const messages = messagesToChat({ model: 'gpt-4o-latest', max_tokens: 10, messages: hello, ...same } as never);
    expect(messages.request).toMatchObject(same);
  });

  it("are checked by chat's rows before translation", () => {
    expect(() => responsesToChat({ model: 'gpt-4o-latest', input: 'hi', temperature: 3 } as never)).toThrow(
      '"temperature" must be a number from 0 to 2 (got 3).',
    );
    const body = { model: 'gpt-4o-latest', max_tokens: 10, messages: hello, prompt_cache: 'always' };
    expect(() => messagesToChat(body as never)).toThrow('"prompt_cache" must be "auto" or false.');
  });
});

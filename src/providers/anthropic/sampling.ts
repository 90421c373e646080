import type { ProviderCall } from '../provider.ts';

/**
 * Claude's sampling parameters, `temperature` and `top_p`. The API version `@anthropic-ai/sdk` 1.x sends refuses them
 * for every model, but the models that take them (the catalog's `supports.temperature` and `supports.top_p`) still do
 * on the version they were released with: their offering names it as `sampling_api_version`, and a request that
 * sends either is made on that version. Bedrock's Converse has no versions: it takes them for those models as is.
 */

/** The API version the SDK sends, which takes no sampling parameters. */
const SDK_API_VERSION = '2026-10-21';

/** Claude's temperature runs from 0 to 1 (OpenAI's from 0 to 2). */
const MAX_TEMPERATURE = 1;

export interface Sampling {
  temperature?: number;
  top_p?: number;
}

/** The API version on which the call's model takes sampling parameters at `provider`, as its offering names it. */
export function samplingApiVersion(call: ProviderCall, provider: string): string | undefined {
  const offering = call.model.providers.find((entry) => entry.provider === provider && entry.model === call.body.model);
  return offering?.sampling_api_version;
}

/**
 * The `anthropic-version` to send instead of the SDK's: the model's sampling version when the converted request
 * carries a sampling parameter, else none.
 */
export function apiVersionFor(call: ProviderCall, params: Sampling, provider: string): string | undefined {
  if (params.temperature === undefined && params.top_p === undefined) return undefined;
  return samplingApiVersion(call, provider);
}

/**
 * `temperature` and `top_p` as the model takes them. Dropped with a warning where the model takes no such parameter,
 * or where the API version the call is made on refuses them (`versionTakesThem` false: on Anthropic's API, when no
 * `sampling_api_version` is named); temperature above 1 lowered to 1; top_p dropped beside temperature for a model
 * that takes one of the two per request.
 */
export function claudeSampling(call: ProviderCall, versionTakesThem: boolean): Sampling {
  const sampling: Sampling = {};
  const id = call.model.id;
  for (const param of ['temperature', 'top_p'] as const) {
    const value = call.body[param];
    if (value == null) continue;
    if (!call.model.supports[param]) {
      call.warn({
        code: 'unsupported_parameter',
        param,
        message: `${id} does not support "${param}"; it was not sent.`,
      });
    } else if (!versionTakesThem) {
      call.warn({
        code: 'unsupported_parameter',
        param,
        message:
          `Anthropic's API version ${SDK_API_VERSION} refuses sampling parameters, and the catalog names no ` +
          `earlier version for ${id} (sampling_api_version); "${param}" was not sent.`,
      });
    } else sampling[param] = value;
  }
  if (sampling.temperature !== undefined && sampling.temperature > MAX_TEMPERATURE) {
    call.warn({
      code: 'converted_parameter',
      param: 'temperature',
      message: `Claude takes a temperature from 0 to ${MAX_TEMPERATURE}; ${sampling.temperature} was sent as 1.`,
    });
    sampling.temperature = MAX_TEMPERATURE;
  }
  if (
    sampling.temperature !== undefined &&
    sampling.top_p !== undefined &&
    call.model.supports.temperature_with_top_p === false
  ) {
    call.warn({
      code: 'unsupported_parameter',
      param: 'top_p',
      message: `${id} takes temperature or top_p, not both; top_p was not sent.`,
    });
    delete sampling.top_p;
  }
  return sampling;
}

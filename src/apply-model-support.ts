import { UnsupportedParameterError } from './errors.ts';
import type { ModelEntry } from './catalog/catalog-schema.ts';
import type { CompletionWarning } from './types.ts';

/** Parameters a catalog flag can rule out, and the flag that rules them out. */
const GATED_PARAMS: ReadonlyArray<[param: string, flag: keyof ModelEntry['supports']]> = [
  ['temperature', 'temperature'],
  ['top_p', 'top_p'],
  ['stop', 'stop'],
  ['tools', 'tools'],
  ['tool_choice', 'tools'],
  ['parallel_tool_calls', 'parallel_tool_calls'],
];

/**
 * Drops the parameters the model cannot take, each with a warning, so that switching models keeps working.
 * In strict mode the first such parameter is an error instead.
 */
export function applyModelSupport(
  body: Record<string, unknown>,
  model: ModelEntry,
  strict: boolean,
  warnings: CompletionWarning[],
): void {
  for (const [param, flag] of GATED_PARAMS) {
    if (body[param] == null || model.supports[flag]) continue;
    const message = `${model.id} does not support "${param}"`;
    if (strict) throw new UnsupportedParameterError(`${message}. Remove it, or create the gateway without strict: true to drop it with a warning.`, param);
    delete body[param];
    warnings.push({ code: 'unsupported_parameter', param, message: `${message}; it was not sent.` });
  }
}

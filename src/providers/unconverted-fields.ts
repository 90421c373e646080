import type { ProviderCall } from './provider.ts';

/** The OpenAI fields every translating adapter (Anthropic, Bedrock, Gemini) converts to its provider's terms. */
const CONVERTED_EVERYWHERE = [
  'model',
  'messages',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'stop',
  'tools',
  'tool_choice',
  'response_format',
];

/** The fields an adapter converts: those every adapter does, and its own. */
export function convertedFields(...own: string[]): ReadonlySet<string> {
  return new Set([...CONVERTED_EVERYWHERE, ...own]);
}

/**
 * No field is silently ignored: each field of `body` the adapter did not convert is dropped with a warning saying
 * so, unless it is null or a value that changes nothing (`isNoOp`).
 */
export function warnUnconverted(
  call: ProviderCall,
  body: object,
  converted: ReadonlySet<string>,
  isNoOp: (param: string, value: unknown) => boolean,
  noEquivalent: (param: string) => string,
): void {
  for (const [param, value] of Object.entries(body)) {
    if (converted.has(param) || value == null || isNoOp(param, value)) continue;
    call.warn({ code: 'unsupported_parameter', param, message: noEquivalent(param) });
  }
}

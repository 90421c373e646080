import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { planStrictSchema } from '../../structured-output/strict-json-schema.ts';
import type { ProviderCall } from '../provider.ts';

/**
 * Native JSON Schema output is sent in strict mode (constrained decoding) unless the caller set `strict: false` or
 * the schema's valid answers cannot all be expressed in strict form (`planStrictSchema`): then it goes non-strict,
 * with a warning, and the answer is held to the caller's schema by validation, repair and the retry.
 */
export function strictResponseFormat(format: unknown, call: ProviderCall, provider: string): unknown {
  const responseFormat = format as
    | { type?: string; json_schema?: { strict?: boolean; schema?: Record<string, unknown> } }
    | undefined;
  if (
    responseFormat?.type !== 'json_schema' ||
    responseFormat.json_schema?.strict === false ||
    !responseFormat.json_schema?.schema
  )
    return format;
  // The shaping stage decided it for this call; a call made elsewhere (a test, your own code) is planned here.
  const plan = call.strict?.output ?? planStrictSchema(responseFormat.json_schema.schema);
  if (!plan.strict) {
    call.warn({
      code: 'strict_schema_relaxed',
      param: 'response_format.json_schema.strict',
      message:
        `The schema was sent to ${provider} without strict mode: its strict form could not express every ` +
        `answer it allows (${plan.reason}). The answer is validated against it instead.`,
    });
    return { ...responseFormat, json_schema: { ...responseFormat.json_schema, strict: false } };
  }
  return { ...responseFormat, json_schema: { ...responseFormat.json_schema, strict: true, schema: plan.schema } };
}

/**
 * A function tool marked `strict: true` gets the same decision as an output schema: its parameters in strict form,
 * or, when that form cannot express every call the parameters allow, sent non-strict with a warning (the arguments
 * are validated against the caller's parameters either way).
 */
export function strictTools(tools: ChatCompletionTool[], call: ProviderCall, provider: string): ChatCompletionTool[] {
  if (!tools.some((tool) => tool.type === 'function' && tool.function.strict === true)) return tools;
  return tools.map((tool) => {
    if (tool.type !== 'function' || tool.function.strict !== true) return tool;
    const plan =
      call.strict?.tools.get(tool.function.name) ??
      planStrictSchema((tool.function.parameters ?? { type: 'object', properties: {} }) as object as never);
    if (plan.strict) return { ...tool, function: { ...tool.function, parameters: plan.schema } };
    call.warn({
      code: 'strict_schema_relaxed',
      param: 'tools.function.strict',
      message:
        `The tool ${tool.function.name} was sent to ${provider} without strict mode: its strict form could not ` +
        `express every call its parameters allow (${plan.reason}). Its arguments are validated instead.`,
    });
    return { ...tool, function: { ...tool.function, strict: false } };
  });
}

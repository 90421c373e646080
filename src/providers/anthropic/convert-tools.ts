import type Anthropic from '@anthropic-ai/sdk';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { CacheControl } from '../../types.ts';
import { type PortableToolChoice, portableTools } from '../portable-tools.ts';
import type { ProviderCall } from '../provider.ts';
import type { Params } from './convert-request.ts';

/** OpenAI function tools and tool choice as Anthropic's. */

/** The function tools and the tool choice as Anthropic's (OpenAI's newer kinds made portable first). */
export function applyTools(call: ProviderCall, params: Params): void {
  const { tools, choice } = portableTools(call, 'Anthropic');
  if (!tools) return;
  params.tools = tools.map((tool, index) => convertTool(tool, index, call));
  const converted = convertToolChoice(choice, call.body.parallel_tool_calls);
  if (converted) params.tool_choice = converted;
}

function convertTool(tool: ChatCompletionFunctionTool, index: number, call: ProviderCall): Anthropic.Tool {
  const { name, description, parameters, strict } = tool.function;
  const converted: Anthropic.Tool = {
    name,
    input_schema: (parameters ?? { type: 'object', properties: {} }) as Anthropic.Tool.InputSchema,
  };
  if (description) converted.description = description;
  const control = (tool as { cache_control?: CacheControl }).cache_control;
  if (control) converted.cache_control = control.ttl ? { type: 'ephemeral', ttl: control.ttl } : { type: 'ephemeral' };
  if (strict && call.model.supports.structured_outputs) converted.strict = true;
  else if (strict) {
    call.warn({
      code: 'unsupported_parameter',
      param: `tools[${index}].function.strict`,
      message: `${call.model.id} cannot enforce tool schemas; "strict" was not sent.`,
    });
  }
  return converted;
}

function convertToolChoice(
  choice: PortableToolChoice | undefined,
  parallel: boolean | null | undefined,
): Anthropic.ToolChoice | undefined {
  const single = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...single };
  if (typeof choice === 'object') return { type: 'tool', name: choice.function.name, ...single };
  if (choice === 'auto' || parallel === false) return { type: 'auto', ...single };
  return undefined;
}

/** With thinking on Anthropic accepts only `auto` or `none` tool choice. */
export function relaxToolChoice(call: ProviderCall, params: Params): void {
  const choice = params.tool_choice;
  if (choice?.type !== 'any' && choice?.type !== 'tool') return;
  params.tool_choice = {
    type: 'auto',
    ...(choice.disable_parallel_tool_use ? { disable_parallel_tool_use: true } : {}),
  };
  call.warn({
    code: 'converted_parameter',
    param: 'tool_choice',
    message: 'Anthropic cannot force a tool call while the model thinks; tool_choice was sent as "auto".',
  });
}

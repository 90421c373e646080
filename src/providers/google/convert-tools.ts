import type { FunctionCallingConfigMode, FunctionDeclaration, GenerateContentConfig } from '@google/genai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { type PortableToolChoice, portableTools } from '../portable-tools.ts';
import type { ProviderCall } from '../provider.ts';

/** OpenAI function tools and tool choice as Gemini's. */

/** The function tools and the tool choice as Gemini's (OpenAI's newer kinds made portable first). */
export function applyTools(
  body: ChatCompletionCreateParamsBase,
  config: GenerateContentConfig,
  call: ProviderCall,
): void {
  const { tools, choice } = portableTools(call, 'Gemini');
  if (tools) {
    const declarations: FunctionDeclaration[] = tools.map(({ function: { name, description, parameters } }) => ({
      name,
      ...(description ? { description } : {}),
      ...(parameters ? { parametersJsonSchema: parameters } : {}),
    }));
    config.tools = [{ functionDeclarations: declarations }];
  }
  if (body.parallel_tool_calls === false) {
    call.warn({
      code: 'unsupported_parameter',
      param: 'parallel_tool_calls',
      message: 'Gemini cannot be told to call one function at a time; "parallel_tool_calls: false" was not sent.',
    });
  }
  if (choice) config.toolConfig = { functionCallingConfig: toFunctionCalling(choice) };
}

function toFunctionCalling(choice: PortableToolChoice): {
  mode: FunctionCallingConfigMode;
  allowedFunctionNames?: string[];
} {
  const mode = (value: 'AUTO' | 'ANY' | 'NONE') => value as FunctionCallingConfigMode;
  if (choice === 'auto') return { mode: mode('AUTO') };
  if (choice === 'required') return { mode: mode('ANY') };
  if (choice === 'none') return { mode: mode('NONE') };
  return { mode: mode('ANY'), allowedFunctionNames: [choice.function.name] };
}

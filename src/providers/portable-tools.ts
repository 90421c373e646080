import type { ChatCompletionFunctionTool, ChatCompletionNamedToolChoice } from 'openai/resources/chat/completions';
import type { ProviderCall } from './provider.ts';

/** A tool choice every provider with function calling can express. */
export type PortableToolChoice = 'none' | 'auto' | 'required' | ChatCompletionNamedToolChoice;

/**
 * The request's tools and tool choice in the forms every provider knows, for a provider without OpenAI's newer
 * kinds. `allowed_tools` ("only these may be called") becomes exactly that: the other tools are not sent, and its
 * mode becomes the choice. Custom (free-form input) tools reach an adapter as functions already (the pipeline turns
 * them so for a provider without `capabilities.customTools`: `custom-tools.ts`); one that still comes here (an adapter
 * called directly) is dropped with a warning (an error under strict), and so is a choice naming one.
 */
export function portableTools(
  call: ProviderCall,
  provider: string,
): { tools: ChatCompletionFunctionTool[] | undefined; choice: PortableToolChoice | undefined } {
  const { tools: sent, tool_choice: asked } = call.body;
  let tools: ChatCompletionFunctionTool[] = [];
  sent?.forEach((tool, index) => {
    if (tool.type === 'function') tools.push(tool);
    else
      call.warn({
        code: 'unsupported_parameter',
        param: `tools[${index}]`,
        message: `${provider} takes function tools only; the custom tool "${tool.custom.name}" was not sent.`,
      });
  });
  let choice: PortableToolChoice | undefined;
  if (asked === undefined || typeof asked === 'string' || asked.type === 'function') choice = asked;
  else if (asked.type === 'allowed_tools') {
    const allowed = new Set(
      asked.allowed_tools.tools.map((tool) => (tool as { function?: { name?: unknown } }).function?.name),
    );
    tools = tools.filter((tool) => allowed.has(tool.function.name));
    choice = asked.allowed_tools.mode;
    call.warn({
      code: 'converted_parameter',
      param: 'tool_choice',
      message:
        `${provider} has no allowed_tools choice; only the allowed tools were sent, with tool_choice ` + `"${choice}".`,
    });
  } else {
    call.warn({
      code: 'unsupported_parameter',
      param: 'tool_choice',
      message:
        `${provider} takes function tools only; tool_choice naming the custom tool "${asked.custom.name}" ` +
        `was not sent.`,
    });
  }
  return {
    tools: tools.length > 0 ? tools : undefined,
    choice: tools.length > 0 || choice === 'none' ? choice : undefined,
  };
}

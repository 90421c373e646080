import type Anthropic from '@anthropic-ai/sdk';
import type { CompletionRequest, CompletionTool, CompletionWarning, WebSearchOptions } from '../../types.ts';
import { marked } from './cache-mark.ts';

/**
 * A Messages request's tools and tool choice as chat's: custom tools as function tools; Anthropic's web search as
 * chat's `web_search_options`, which each provider runs with its own search (Claude with this same tool); every other
 * server tool dropped with a warning (an error under strict).
 */
export function applyTools(
  params: Anthropic.MessageCreateParams,
  request: CompletionRequest,
  warnings: CompletionWarning[],
): void {
  const tools: CompletionTool[] = [];
  params.tools?.forEach((tool, index) => {
    const at = `tools[${index}]`;
    if ('input_schema' in tool && (tool.type === undefined || tool.type === 'custom'))
      tools.push(functionTool(tool, at, warnings));
    else if (typeof tool.type === 'string' && tool.type.startsWith('web_search_'))
      request.web_search_options = webSearch(tool as Anthropic.WebSearchTool20250305);
    else {
      warnings.push({
        code: 'unsupported_parameter',
        param: at,
        message: `The server tool "${tool.type}" runs on Anthropic's side alone; it was not sent.`,
      });
    }
  });
  if (tools.length > 0) request.tools = tools;
  applyToolChoice(params.tool_choice, request);
}

function functionTool(tool: Anthropic.Tool, at: string, warnings: CompletionWarning[]): CompletionTool {
  const fn: CompletionTool = {
    type: 'function',
    function: { name: tool.name, parameters: tool.input_schema as Record<string, unknown> },
  };
  if (tool.description) fn.function.description = tool.description;
  if (tool.strict) fn.function.strict = true;
  if (tool.defer_loading) {
    // Loading tools later (tool search) is Anthropic's alone: the model sees this one from the start instead.
    warnings.push({
      code: 'converted_parameter',
      param: `${at}.defer_loading`,
      message: `The tool "${tool.name}" was sent up front: tools are not loaded on demand through this gateway.`,
    });
  }
  return marked(fn, tool);
}

/** Anthropic's web search tool as chat's web search: its domains, its number of searches, the user's location. */
function webSearch(tool: Anthropic.WebSearchTool20250305): WebSearchOptions {
  const options: WebSearchOptions = {};
  if (tool.allowed_domains?.length) options.allowed_domains = tool.allowed_domains;
  if (tool.blocked_domains?.length) options.blocked_domains = tool.blocked_domains;
  if (tool.max_uses != null) options.max_uses = tool.max_uses;
  const { type: _type, ...place } = tool.user_location ?? {};
  const approximate = Object.fromEntries(Object.entries(place).filter(([, value]) => value != null));
  if (Object.keys(approximate).length > 0) options.user_location = { type: 'approximate', approximate };
  return options;
}

function applyToolChoice(choice: Anthropic.ToolChoice | undefined, request: CompletionRequest): void {
  if (!choice) return;
  if (choice.type === 'auto') request.tool_choice = 'auto';
  else if (choice.type === 'any') request.tool_choice = 'required';
  else if (choice.type === 'none') request.tool_choice = 'none';
  else request.tool_choice = { type: 'function', function: { name: choice.name } };
  if ('disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use) request.parallel_tool_calls = false;
}

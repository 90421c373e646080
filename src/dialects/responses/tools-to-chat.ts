import type {
  CustomTool,
  FunctionTool,
  ResponseCreateParams,
  Tool,
  WebSearchTool,
} from 'openai/resources/responses/responses';
import { InvalidRequestError } from '../../errors.ts';
import type { CompletionRequest, CompletionTool, CompletionWarning, WebSearchOptions } from '../../types.ts';
import { flattenNamespace, sentToolName } from './namespace-tools.ts';

/**
 * A Responses request's tools as chat's: function, custom and namespace tools (a namespace's flattened), those of its
 * `additional_tools` input items too; web search as chat's `web_search_options`, which each provider runs with its
 * own search; every other tool OpenAI's Responses API runs itself dropped with a warning (an error under strict).
 */
export function applyTools(
  params: ResponseCreateParams,
  request: CompletionRequest,
  warnings: CompletionWarning[],
): void {
  const tools: Array<{ tool: Tool; at: string }> = (params.tools ?? []).map((tool, index) => ({
    tool,
    at: `tools[${index}]`,
  }));
  if (Array.isArray(params.input)) {
    params.input.forEach((item, index) => {
      if (item.type !== 'additional_tools') return;
      item.tools.forEach((tool, inner) => {
        tools.push({ tool, at: `input[${index}].tools[${inner}]` });
      });
    });
  }
  const chat = chatTools(tools, request, warnings);
  if (chat.length > 0) request.tools = chat;
  if (params.tool_choice != null) {
    const choice = chatToolChoice(params.tool_choice, warnings);
    if (choice) request.tool_choice = choice;
  }
}

/** The tools as chat's, a namespace's tools flattened to top-level tools whose names no other tool has. */
function chatTools(
  tools: ReadonlyArray<{ tool: Tool; at: string }>,
  request: CompletionRequest,
  warnings: CompletionWarning[],
): CompletionTool[] {
  const chat: CompletionTool[] = [];
  const names = new Map<string, string | undefined>(); // name → its namespace
  for (const { tool, at } of tools) {
    if (tool.type !== 'function' && tool.type !== 'custom' && tool.type !== 'namespace') {
      builtInTool(tool, at, request, warnings);
      continue;
    }
    const namespace = tool.type === 'namespace' ? tool.name : undefined;
    for (const one of tool.type === 'namespace' ? flattenNamespace(tool) : [tool]) {
      const translated = chatTool(one);
      const name = translated.type === 'function' ? translated.function.name : translated.custom.name;
      const other = names.get(name);
      if (names.has(name) && (namespace ?? other) !== undefined) {
        throw new InvalidRequestError(
          `${at}: the tool "${name}"${namespace ? ` of the namespace "${namespace}"` : ''} is sent under ` +
            `the name of another tool${other ? ` of the namespace "${other}"` : ''}; rename one of them.`,
          at,
        );
      }
      names.set(name, namespace);
      chat.push(translated);
    }
  }
  return chat;
}

function chatTool(tool: FunctionTool | CustomTool): CompletionTool {
  if (tool.type === 'function') {
    const chat: CompletionTool = {
      type: 'function',
      // Function tools are strict in the Responses API unless told otherwise.
      function: {
        name: tool.name,
        parameters: tool.parameters ?? { type: 'object', properties: {} },
        strict: tool.strict ?? true,
      },
    };
    if (tool.description) chat.function.description = tool.description;
    return chat;
  }
  // Chat's form: the grammar's syntax and definition under `grammar`.
  const { name, description, format } = tool;
  const chatFormat =
    format?.type === 'grammar'
      ? { type: 'grammar' as const, grammar: { syntax: format.syntax, definition: format.definition } }
      : format && { type: 'text' as const };
  return {
    type: 'custom',
    custom: { name, ...(description ? { description } : {}), ...(chatFormat ? { format: chatFormat } : {}) },
  };
}

const WEB_SEARCH = ['web_search', 'web_search_2025_08_26', 'web_search_preview', 'web_search_preview_2025_03_11'];

/** A tool OpenAI runs itself: web search as `web_search_options`, any other dropped with a warning. */
function builtInTool(tool: Tool, at: string, request: CompletionRequest, warnings: CompletionWarning[]): void {
  if (!WEB_SEARCH.includes(tool.type)) {
    warnings.push({
      code: 'unsupported_parameter',
      param: at,
      message: `"${tool.type}" is a tool OpenAI's Responses API runs itself; no model here has it, so it was not sent.`,
    });
    return;
  }
  const search = tool as WebSearchTool & { external_web_access?: boolean };
  // Codex's default ("cached"): OpenAI's own index of pages, chosen over the live web to keep injected pages out.
  // No provider here has that; the live web instead would widen what the caller allowed, so nothing is sent.
  if (search.external_web_access === false) {
    warnings.push({
      code: 'unsupported_parameter',
      param: `${at}.external_web_access`,
      message:
        "web_search with external_web_access: false asks for OpenAI's cached search index, which no model here " +
        'has, so it was not sent; a live search (Codex: web_search = "live") uses the model\'s own search.',
    });
    return;
  }
  const options: WebSearchOptions = {};
  if (search.search_context_size) options.search_context_size = search.search_context_size;
  const { type: _type, ...place } = search.user_location ?? {};
  const approximate = Object.fromEntries(Object.entries(place).filter(([, value]) => value != null));
  if (Object.keys(approximate).length > 0) options.user_location = { type: 'approximate', approximate };
  if (search.filters?.allowed_domains?.length) options.allowed_domains = search.filters.allowed_domains;
  request.web_search_options = options;
}

function chatToolChoice(
  choice: NonNullable<ResponseCreateParams['tool_choice']>,
  warnings: CompletionWarning[],
): CompletionRequest['tool_choice'] {
  if (typeof choice === 'string') return choice;
  // A namespaced tool by the flat name it was sent under, as in allowed_tools.
  const sent = (named: { name: string; namespace?: string | null }) => sentToolName(named);
  if (choice.type === 'function') return { type: 'function', function: { name: sent(choice) } };
  if (choice.type === 'custom') return { type: 'custom', custom: { name: sent(choice) } };
  if (choice.type === 'allowed_tools') return allowedTools(choice, warnings);
  warnings.push({
    code: 'unsupported_parameter',
    param: 'tool_choice',
    message: `tool_choice "${choice.type}" names a tool OpenAI's Responses API runs itself; the model chooses instead.`,
  });
  return undefined;
}

/**
 * `allowed_tools` as chat's: each function or custom tool by the name it was sent under (a namespaced one's flat
 * name); a built-in tool, which no model here has, dropped with a warning; with none left, no tool (a 400 when one
 * is required).
 */
function allowedTools(
  choice: Extract<NonNullable<ResponseCreateParams['tool_choice']>, { type: 'allowed_tools' }>,
  warnings: CompletionWarning[],
): CompletionRequest['tool_choice'] {
  const tools = [];
  for (const [index, tool] of choice.tools.entries()) {
    const named = tool as { type: string; name?: unknown; namespace?: string | null };
    if (named.type !== 'function' && named.type !== 'custom') {
      warnings.push({
        code: 'unsupported_parameter',
        param: `tool_choice.tools[${index}]`,
        message: `"${named.type}" is a tool OpenAI's Responses API runs itself; it was left out of allowed_tools.`,
      });
      continue;
    }
    const name = sentToolName({ name: String(named.name), namespace: named.namespace ?? null });
    tools.push(
      named.type === 'custom'
        ? { type: 'custom' as const, custom: { name } }
        : { type: 'function' as const, function: { name } },
    );
  }
  // None left: the model may call none of the tools (never all of them, which no tool_choice would mean).
  if (tools.length > 0) return { type: 'allowed_tools', allowed_tools: { mode: choice.mode, tools } };
  if (choice.mode === 'required')
    throw new InvalidRequestError(
      'tool_choice requires one of its allowed_tools, and each is a tool OpenAI runs itself, which no model here has.',
      'tool_choice.tools',
    );
  return 'none';
}

import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { CompletionWarning } from '../types.ts';
import type { ProviderCompletion } from './provider.ts';

/**
 * OpenAI's custom tools (free-form text input, optionally held to a grammar) for a provider that has only function
 * tools: each is sent as a function taking one string, `input`, with the format in its description; the model's calls
 * of it come back as custom calls with that string as their `input`; custom calls in the history go as calls of the
 * function. So a custom tool (Codex's `apply_patch`) works on every model, and the caller sees custom calls only.
 */

/** The one parameter of the function that stands for a custom tool. */
const INPUT = 'input';

type Body = ChatCompletionCreateParamsBase;
type CustomTool = Extract<ChatCompletionTool, { type: 'custom' }>;
type Format = CustomTool['custom']['format'];

/**
 * `body` with its custom tools as functions (a new body; the caller's is not changed), and the names of those tools,
 * or `undefined` when it has none and no custom call in its history.
 */
export function customToolsAsFunctions(
  body: Body,
  warn: (warning: CompletionWarning) => void,
  provider: string,
): { body: Body; names: ReadonlySet<string> } | undefined {
  const customs = (body.tools ?? []).filter((tool): tool is CustomTool => tool.type === 'custom');
  const historyCalls = body.messages.some(
    (message) => message.role === 'assistant' && message.tool_calls?.some((call) => call.type === 'custom'),
  );
  if (customs.length === 0 && !historyCalls) return undefined;
  const names = new Set(customs.map((tool) => tool.custom.name));
  const rewritten: Body = { ...body, messages: body.messages.map(withFunctionCalls) };
  if (body.tools) rewritten.tools = body.tools.map((tool) => (tool.type === 'custom' ? asFunction(tool) : tool));
  if (body.tool_choice !== undefined) rewritten.tool_choice = functionChoice(body.tool_choice);
  if (customs.length > 0) {
    warn({
      code: 'converted_parameter',
      param: 'tools',
      message:
        `${provider} has no custom (free-form) tools: ${[...names].map((name) => `"${name}"`).join(', ')} ` +
        `went as functions taking one string, "${INPUT}"; their calls come back as custom calls.`,
    });
  }
  return { body: rewritten, names };
}

function asFunction(tool: CustomTool): ChatCompletionTool {
  const { name, description, format } = tool.custom;
  const fn: ChatCompletionTool = {
    type: 'function',
    function: {
      name,
      parameters: {
        type: 'object',
        properties: { [INPUT]: { type: 'string', description: inputDescription(format) } },
        required: [INPUT],
        additionalProperties: false,
      },
    },
  };
  if (description) fn.function.description = description;
  const control = (tool as { cache_control?: unknown }).cache_control;
  return control === undefined ? fn : ({ ...fn, cache_control: control } as ChatCompletionTool);
}

const GRAMMAR_INTRO = 'The tool’s whole input, as raw text (not JSON), which must match this ';

/** What the string must be: free text, or text the grammar accepts (the model is told; no provider enforces it). */
function inputDescription(format: Format): string {
  if (format?.type !== 'grammar') return 'The tool’s whole input, as free-form text (not JSON).';
  const { syntax, definition } = format.grammar;
  return `${GRAMMAR_INTRO}${syntax === 'regex' ? 'regular expression' : `${syntax} grammar`}:\n${definition}`;
}

/**
 * The grammar a parameter's description gives the text of (the function standing for a custom tool), as a model
 * reads it there: the simulator writes text it accepts. `undefined` for any other description.
 */
export function grammarInDescription(description: unknown): { syntax: string; definition: string } | undefined {
  if (typeof description !== 'string' || !description.startsWith(GRAMMAR_INTRO)) return undefined;
  const match = /^(regular expression|(\w+) grammar):\n([\s\S]*)$/.exec(description.slice(GRAMMAR_INTRO.length));
  if (!match) return undefined;
  return { syntax: match[2] ?? 'regex', definition: match[3]! };
}

function functionChoice(choice: ChatCompletionToolChoiceOption): ChatCompletionToolChoiceOption {
  if (typeof choice === 'string') return choice;
  if (choice.type === 'custom') return { type: 'function', function: { name: choice.custom.name } };
  if (choice.type !== 'allowed_tools') return choice;
  const tools = choice.allowed_tools.tools.map((tool) => {
    const custom = (tool as { type?: string; custom?: { name?: unknown } }).custom;
    return custom ? { type: 'function', function: { name: custom.name } } : tool;
  });
  return { ...choice, allowed_tools: { ...choice.allowed_tools, tools } };
}

/** An assistant message whose custom calls are calls of the functions that stand for them. */
function withFunctionCalls(message: ChatCompletionMessageParam): ChatCompletionMessageParam {
  if (message.role !== 'assistant' || !message.tool_calls?.some((call) => call.type === 'custom')) return message;
  const tool_calls = message.tool_calls.map((call) =>
    call.type === 'custom'
      ? {
          id: call.id,
          type: 'function' as const,
          function: { name: call.custom.name, arguments: JSON.stringify({ [INPUT]: call.custom.input }) },
        }
      : call,
  );
  return { ...message, tool_calls };
}

/**
 * A call's arguments as the custom tool's input: the `input` string the function was given; arguments of another
 * form (the model ignored the schema) as they are, with a warning.
 */
export function inputOf(name: string, args: string, warn: (warning: CompletionWarning) => void): string {
  try {
    const parsed: unknown = JSON.parse(args);
    const input = (parsed as Record<string, unknown> | null)?.[INPUT];
    if (typeof input === 'string') return input;
  } catch {
    // not JSON: taken as the input itself
  }
  warn({
    code: 'converted_parameter',
    message: `The model called the custom tool "${name}" without an "${INPUT}" string; its arguments are the input.`,
  });
  return args;
}

/** The completion with the calls of the functions standing for custom tools as custom calls (in place). */
export function customCallsBack(
  completion: ProviderCompletion,
  names: ReadonlySet<string>,
  warn: (warning: CompletionWarning) => void,
): ProviderCompletion {
  for (const choice of completion.choices) {
    const calls = choice.message.tool_calls;
    if (!calls?.some((call) => call.type === 'function' && names.has(call.function.name))) continue;
    choice.message.tool_calls = calls.map((call) =>
      call.type === 'function' && names.has(call.function.name)
        ? {
            id: call.id,
            type: 'custom',
            custom: { name: call.function.name, input: inputOf(call.function.name, call.function.arguments, warn) },
          }
        : call,
    );
  }
  return completion;
}

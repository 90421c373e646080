import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { CompletionMessage, CompletionTool } from '../types.ts';
import { dropAddedNulls } from './drop-added-nulls.ts';
import { compileSchema, type JsonSchema } from './json-schema-validator.ts';
import { parseModelJson } from './parse-model-json.ts';

/** What checking an answer's tool calls found: the problems, and whether any arguments were repaired. */
export interface ToolCallCheck {
  errors: string[];
  repaired: string[];
}

/**
 * Holds each function call of an answer to its tool's `parameters`: arguments that are not JSON are repaired where
 * they can be (and rewritten as the repaired JSON), then validated. `strictTools`: the tools that were sent in OpenAI's
 * strict form (decided when the request was shaped), whose nulls for optional parameters mean "left out" (dropped,
 * as for answers).
 */
export function checkToolCalls(
  message: CompletionMessage,
  tools: readonly CompletionTool[] | undefined,
  strictTools: ReadonlySet<string>,
): ToolCallCheck {
  const check: ToolCallCheck = { errors: [], repaired: [] };
  for (const call of message.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    const name = call.function.name;
    const tool = tools && toolNamed(tools, name);
    if (!tool) {
      check.errors.push(`${name}: there is no tool of that name`);
      continue;
    }
    const found = parseModelJson(call.function.arguments || '{}');
    if (!found) {
      check.errors.push(`${name}: the arguments are not JSON`);
      continue;
    }
    const parameters = tool.function.parameters as JsonSchema | undefined;
    let value = found.value;
    if (parameters && strictTools.has(name)) value = dropAddedNulls(value, parameters);
    if (parameters) {
      const validator = compileSchema(parameters, 'tools.function.parameters');
      if (!validator.validate(value)) {
        check.errors.push(...validator.errors().map((error) => `${name}: ${error}`));
        continue;
      }
    }
    if (value !== found.value || found.text !== call.function.arguments) {
      if (found.text !== call.function.arguments.trim()) check.repaired.push(name);
      call.function.arguments = JSON.stringify(value);
    }
  }
  return check;
}

type FunctionTool = Extract<CompletionTool, { type: 'function' }>;
/** Per tools array (one per request), where each function tool's name first appears in it. */
const toolIndexes = new WeakMap<readonly CompletionTool[], ReadonlyMap<string, number>>();

/**
 * The first function tool named `name`, found through an index built once per tools array; the index is checked
 * against the array at each use and built again when the array has changed under it.
 */
function toolNamed(tools: readonly CompletionTool[], name: string): FunctionTool | undefined {
  let at = toolIndexes.get(tools)?.get(name);
  if (at === undefined || !isFunctionNamed(tools[at], name)) {
    const indexes = new Map<string, number>();
    tools.forEach((tool, index) => {
      if (tool.type === 'function' && !indexes.has(tool.function.name)) indexes.set(tool.function.name, index);
    });
    toolIndexes.set(tools, indexes);
    at = indexes.get(name);
  }
  return at === undefined ? undefined : (tools[at] as FunctionTool);
}

function isFunctionNamed(tool: CompletionTool | undefined, name: string): boolean {
  return tool?.type === 'function' && tool.function.name === name;
}

/**
 * The follow-up turn that asks the model to call again: its calls, each answered with the problems found, as a tool
 * result (a shape every provider takes after an assistant turn with tool calls).
 */
export function toolCorrectionMessages(message: CompletionMessage, errors: string[]): ChatCompletionMessageParam[] {
  const calls = (message.tool_calls ?? []).filter((call) => call.type === 'function');
  return [
    { role: 'assistant', content: message.content ?? null, tool_calls: calls },
    ...calls.map((call) => ({
      role: 'tool' as const,
      tool_call_id: call.id,
      content:
        `Not run: the arguments do not match the tool's parameters:\n- ` +
        `${
          errors
            .filter((error) => error.startsWith(`${call.function.name}:`))
            .slice(0, 20)
            .join('\n- ') || 'see the other calls'
        }` +
        `\nCall the tools again with corrected arguments.`,
    })),
  ];
}

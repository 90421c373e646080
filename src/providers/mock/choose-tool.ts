import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import type { OfferedTool, Turn } from './conversation.ts';

/**
 * Which tool the simulator calls, if any, as a model in an agent loop would, deterministically:
 *
 * - a forced tool (`{ type: "function" | "custom", … }`) is called, always;
 * - `"required"` calls the next tool the user's request names that has not answered yet; else, once a tool has
 *   answered, the output tool (pydantic-ai's `final_result`: see `isOutputTool`); else the tool that has not
 *   answered whose name shares most words with the request (the first on a tie); else the output tool; else one
 *   other than the tool that just answered;
 * - `"auto"` (the default with tools) calls the next tool the request names that has not answered yet, and answers
 *   in words once each has;
 * - `"none"` calls none. `allowed_tools` narrows the choice to its tools, in its mode.
 *
 * A request names a tool with "use", "call", "run", "invoke" or "using" before its name ("use apply_patch to create
 * hello.txt", "Use the Write tool…"), in any case.
 */
export function chooseTool(
  choice: ChatCompletionCreateParamsBase['tool_choice'],
  tools: readonly OfferedTool[],
  turn: Turn,
): OfferedTool | undefined {
  if (choice === 'none' || tools.length === 0) return undefined;
  let candidates = tools;
  let mode: 'auto' | 'required' = choice === 'required' ? 'required' : 'auto';
  if (typeof choice === 'object' && choice !== null) {
    if (choice.type === 'function' || choice.type === 'custom') {
      const name = choice.type === 'function' ? choice.function.name : choice.custom.name;
      return tools.find((tool) => tool.name === name) ?? { kind: choice.type, name, description: '' };
    }
    const allowed = new Set(choice.allowed_tools.tools.map((tool) => toolNameOf(tool)));
    candidates = tools.filter((tool) => allowed.has(tool.name));
    mode = choice.allowed_tools.mode;
    if (candidates.length === 0) return undefined;
  }
  const answered = new Set(turn.answered);
  const next = namedIn(turn.request, candidates).find((tool) => !answered.has(tool.name));
  if (next || mode === 'auto') return next;
  const output = candidates.find(isOutputTool);
  if (turn.answered.length > 0 && output) return output;
  const waiting = candidates.filter((tool) => !answered.has(tool.name) && !isOutputTool(tool));
  if (waiting.length > 0) return closestTo(turn.request, waiting);
  return output ?? candidates.find((tool) => tool.name !== turn.answered.at(-1)) ?? candidates[0];
}

/**
 * A tool whose call is the answer itself: pydantic-ai's `final_result` (and `final_result_<Type>`), a `final_answer`,
 * or one described as giving the final response, answer, result or output.
 */
export function isOutputTool(tool: OfferedTool): boolean {
  return (
    /^final_?(?:result|answer|response|output)/i.test(tool.name) ||
    /\bfinal (?:response|answer|result|output)\b/i.test(tool.description)
  );
}

function toolNameOf(tool: { [key: string]: unknown }): unknown {
  const spec = tool[String(tool.type)];
  return typeof spec === 'object' && spec !== null ? (spec as { name?: unknown }).name : undefined;
}

/** The tools the request names ("use X", "call the X tool"), in the order it names them. */
function namedIn(request: string, tools: readonly OfferedTool[]): OfferedTool[] {
  const named: Array<[number, OfferedTool]> = [];
  for (const tool of tools) {
    const name = tool.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const at = new RegExp(`\\b(?:use|call|run|invoke|using)\\s+(?:the\\s+)?[\`'"]?${name}[\`'"]?(?![\\w-])`, 'i');
    const found = at.exec(request);
    if (found) named.push([found.index, tool]);
  }
  return named.sort(([a], [b]) => a - b).map(([, tool]) => tool);
}

/** The tool whose name shares most words with the request (`get_weather` for "the weather in Paris"). */
function closestTo(request: string, tools: readonly OfferedTool[]): OfferedTool {
  const words = new Set(request.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  let best = tools[0]!;
  let bestScore = 0;
  for (const tool of tools) {
    const parts = tool.name.split(/[_\-\s]+|(?<=[a-z0-9])(?=[A-Z])/).map((part) => part.toLowerCase());
    const score = parts.filter((part) => part.length >= 3 && words.has(part)).length;
    if (score > bestScore) [best, bestScore] = [tool, score];
  }
  return best;
}

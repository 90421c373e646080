import { exampleFromSchema } from '../../structured-output/example-from-schema.ts';
import { chooseTool } from './choose-tool.ts';
import { offeredTools, readTurn, type Turn } from './conversation.ts';
import { answerToPromptedSchema } from './prompted-schema.ts';
import type { MockReply, MockRequest } from './simulator.ts';
import { customInput, functionArguments } from './tool-input.ts';

/**
 * The simulator's own answer when nothing is scripted, as a model in an agent loop would give it, deterministically
 * (the same request gets the same answer, so `seed` is honoured by construction):
 *
 * 1. a tool call when one is due (`chooseTool`): a function tool with arguments that fit its schema, a custom tool
 *    with an input in its format (`customInput`);
 * 2. JSON of the requested shape, whether the format was sent natively or put in the prompt (as for a model without
 *    native structured outputs); a JSON Schema the prompt itself holds is answered the same way
 *    (`answerToPromptedSchema`);
 * 3. else text that names the model and echoes the user's request, and the result it got when a tool just answered.
 */
export function simulateAnswer(request: MockRequest): MockReply {
  const { body, output } = request;
  const turn = readTurn(body);
  const tool = chooseTool(body.tool_choice, offeredTools(body), turn);
  if (tool?.kind === 'custom') return { tool_calls: [{ name: tool.name, input: customInput(tool, turn) }] };
  if (tool) return { tool_calls: [{ name: tool.name, arguments: functionArguments(tool, turn) }] };
  if (output?.kind === 'json_schema')
    return JSON.stringify(exampleFromSchema(output.modelSchema ?? output.schema ?? { type: 'object' }));
  // JSON mode asks for bare JSON: a fence is written only for a prompt that alone asks for the format.
  const prompted = answerToPromptedSchema(body.messages, output === undefined);
  if (prompted) return prompted;
  if (output?.kind === 'json_object') return JSON.stringify({ model: request.model, reply: turn.request });
  return `Simulated reply from ${request.model} to: ${turn.request.slice(0, 120)}${afterResult(turn)}`;
}

/** What the model read from the tool that just answered, so a test sees the loop go round. */
function afterResult({ lastResult }: Turn): string {
  return lastResult ? ` (after ${lastResult.name}: ${lastResult.content.slice(0, 120)})` : '';
}

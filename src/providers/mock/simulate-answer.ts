import { exampleFromSchema } from '../../internal/example-from-schema.ts';
import type { MockReply, MockRequest } from './simulator.ts';

/**
 * The simulator's own answer when nothing is scripted: a tool call when one is forced, JSON of the requested shape
 * (whether the format was sent natively or put in the prompt, as for a model without native structured outputs),
 * else text that names the model and echoes the last user message. Deterministic: the same request gets the same
 * answer, so `seed` is honoured by construction.
 */
export function simulateAnswer(request: MockRequest): MockReply {
  const { body, output } = request;
  const forced = forcedTool(request);
  if (forced) {
    const tool = body.tools?.find((candidate) => candidate.type === 'function' && candidate.function.name === forced);
    const parameters = tool && tool.type === 'function' ? tool.function.parameters : undefined;
    return {
      tool_calls: [
        {
          name: forced,
          arguments: (exampleFromSchema(parameters ?? { type: 'object' }) ?? {}) as Record<string, unknown>,
        },
      ],
    };
  }
  if (output?.kind === 'json_schema')
    return JSON.stringify(exampleFromSchema(output.modelSchema ?? output.schema ?? { type: 'object' }));
  if (output?.kind === 'json_object') return JSON.stringify({ model: request.model, reply: lastUserText(request) });
  return `Simulated reply from ${request.model} to: ${lastUserText(request).slice(0, 120)}`;
}

function forcedTool({ body }: MockRequest): string | undefined {
  const choice = body.tool_choice;
  if (typeof choice === 'object' && choice && choice.type === 'function') return choice.function.name;
  if (choice === 'required') {
    const tool = body.tools?.[0];
    return tool && tool.type === 'function' ? tool.function.name : undefined;
  }
  return undefined;
}

function lastUserText({ body }: MockRequest): string {
  const message = [...body.messages].reverse().find((candidate) => candidate.role === 'user');
  if (!message) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join(' ')
    .trim();
}

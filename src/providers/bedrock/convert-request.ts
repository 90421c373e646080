import type { ConverseStreamCommandInput, Tool, ToolChoice } from '@aws-sdk/client-bedrock-runtime';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { claudeSampling } from '../anthropic/sampling.ts';
import { withoutCacheControl } from '../prompt-cache.ts';
import type { ProviderCall } from '../provider.ts';
import { chooseReasoning } from '../reasoning-choice.ts';
import { convertedFields, warnUnconverted } from '../unconverted-fields.ts';
import { convertMessages } from './convert-messages.ts';

/** The Converse request (`ConverseStream` takes the same fields). */
export type ConverseInput = ConverseStreamCommandInput;

type Body = ChatCompletionCreateParamsBase & Record<string, unknown>;

/**
 * OpenAI fields converted below; any other field present is dropped with a warning unless it is a no-op value.
 * Structured output goes in the prompt for Bedrock (JSON mode has no Converse equivalent): the schema is there.
 */
const CONVERTED = convertedFields();
const NO_OP_VALUES: Record<string, unknown> = { n: 1, logprobs: false, store: false, parallel_tool_calls: true };

/** Claude on Bedrock (`anthropic.claude-…`, or a cross-region profile `us.anthropic.claude-…`). */
export function isClaude(modelId: string): boolean {
  return /(^|\.)anthropic\./.test(modelId);
}

/** The caller's OpenAI body as a Converse request. */
export function toConverseRequest(call: ProviderCall): ConverseInput {
  const body = withoutCacheControl(call.body, 'bedrock', call.warn) as Body;
  const { system, messages } = convertMessages(body.messages, call.warn);
  const input: ConverseInput = { modelId: body.model, messages };
  if (system.length > 0) input.system = system;
  const stops = body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  // Claude's own rules (0–1 temperature, one of temperature and top_p for some): Converse passes the values on.
  const { temperature, top_p } = isClaude(body.model) ? claudeSampling(call, true) : body;
  input.inferenceConfig = {
    ...(maxTokens != null ? { maxTokens } : {}),
    ...(temperature != null ? { temperature } : {}),
    ...(top_p != null ? { topP: top_p } : {}),
    ...(stops.length > 0 ? { stopSequences: stops } : {}),
  };
  applyTools(call, body, input);
  warnUnconverted(
    call,
    body,
    CONVERTED,
    (param, value) => NO_OP_VALUES[param] === value,
    (param) => `Bedrock's Converse API has no "${param}"; it was not sent.`,
  );
  if (call.reasoning && isClaude(body.model)) applyClaudeThinking(call, input);
  return input;
}

function applyTools(call: ProviderCall, body: Body, input: ConverseInput): void {
  const tools: Tool[] = [];
  for (const tool of body.tools ?? []) {
    if (tool.type !== 'function') {
      call.warn({
        code: 'unsupported_parameter',
        param: 'tools',
        message: 'Bedrock takes function tools only; a custom tool was not sent.',
      });
      continue;
    }
    const { name, description, parameters } = tool.function;
    tools.push({
      toolSpec: {
        name,
        ...(description ? { description } : {}),
        inputSchema: { json: (parameters ?? { type: 'object', properties: {} }) as never },
      },
    });
  }
  // Converse needs the tool list whenever the history holds tool calls, even if no tool is wanted now.
  const historyUsesTools = input.messages?.some((message) =>
    message.content?.some((block) => 'toolUse' in block || 'toolResult' in block),
  );
  if (tools.length === 0) {
    if (historyUsesTools)
      call.warn({
        code: 'converted_parameter',
        param: 'tools',
        message: 'The conversation holds tool calls but the request lists no tools; Bedrock may refuse it.',
      });
    return;
  }
  const choice = body.tool_choice;
  let toolChoice: ToolChoice | undefined;
  if (choice === 'required') toolChoice = { any: {} };
  else if (typeof choice === 'object' && choice?.type === 'function')
    toolChoice = { tool: { name: choice.function.name } };
  else if (typeof choice === 'object' && choice !== null)
    call.warn({
      code: 'converted_parameter',
      param: 'tool_choice',
      message: `Bedrock has no tool_choice "${choice.type}"; every tool was sent, with "auto".`,
    });
  else if (choice === 'none')
    call.warn({
      code: 'converted_parameter',
      param: 'tool_choice',
      message: 'Bedrock has no tool_choice "none"; the tools were sent with "auto".',
    });
  input.toolConfig = { tools, ...(toolChoice ? { toolChoice } : {}) };
}

/**
 * Claude's thinking, in the field Converse passes to the model unchanged: a budget (Claude ≤ 4.5) or adaptive
 * thinking with an effort (≥ 4.6), chosen by the same rules as on Anthropic's API; maxTokens holds the budget.
 */
function applyClaudeThinking(call: ProviderCall, input: ConverseInput): void {
  const ceiling = call.model.max_output_tokens;
  const choice = chooseReasoning(call, 'bedrock', {
    controls: ['budget', 'level'],
    levelSwitchOff: true,
    maxBudget: ceiling - 1_024,
  });
  if (!choice || choice.kind === 'default') return;
  if (choice.kind === 'off') {
    input.additionalModelRequestFields = { thinking: { type: 'disabled' } };
    return;
  }
  if (choice.kind === 'budget') {
    const config = input.inferenceConfig ?? {};
    if (config.maxTokens === undefined || config.maxTokens <= choice.tokens)
      config.maxTokens = Math.min(ceiling, choice.tokens + (config.maxTokens ?? 8_192));
    input.inferenceConfig = config;
    input.additionalModelRequestFields = { thinking: { type: 'enabled', budget_tokens: choice.tokens } };
    return;
  }
  input.additionalModelRequestFields = { thinking: { type: 'adaptive' }, output_config: { effort: choice.level } };
}

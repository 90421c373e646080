import type { ChatCompletionCreateParamsBase, ChatCompletionTool } from 'openai/resources/chat/completions';
import { portableTools } from '../portable-tools.ts';
import { withoutCacheControl } from '../prompt-cache.ts';
import type { ProviderCall } from '../provider.ts';
import { chooseReasoning } from '../reasoning-choice.ts';
import type { OpenAIFamilyQuirks } from './family.ts';
import { strictResponseFormat, strictTools } from './strict-form.ts';
import { rewriteToolCallIds } from './tool-call-ids.ts';
import { applyWebSearch } from './web-search.ts';

/**
 * The caller's OpenAI body, adjusted to what one provider of the family accepts: its token-limit field, parameters
 * it rejects (dropped with a warning) or names differently, our extension fields stripped from assistant messages,
 * tool-call ids it can take, the reasoning setting as its `reasoning_effort`, and the strict form of a JSON schema.
 * `deployments` maps model names to Azure deployment names.
 */
export function toOpenAIRequest(
  call: ProviderCall,
  quirks: OpenAIFamilyQuirks,
  deployments?: Record<string, string>,
): ChatCompletionCreateParamsBase {
  const body: Record<string, unknown> = quirks.passesCacheControl
    ? { ...call.body }
    : { ...withoutCacheControl(call.body, quirks.name, call.warn) };
  const deployment = deployments?.[call.body.model];
  if (deployment) body.model = deployment;

  if (body.max_tokens != null && quirks.maxTokensField === 'max_completion_tokens') {
    body.max_completion_tokens ??= body.max_tokens;
    delete body.max_tokens;
  } else if (body.max_completion_tokens != null && quirks.maxTokensField === 'max_tokens') {
    body.max_tokens ??= body.max_completion_tokens;
    delete body.max_completion_tokens;
  }
  for (const param of quirks.unsupportedParams ?? []) {
    if (body[param] === undefined) continue;
    delete body[param];
    call.warn({
      code: 'unsupported_parameter',
      param,
      message: `${quirks.name} does not accept "${param}"; it was not sent.`,
    });
  }
  for (const [ours, theirs] of Object.entries(quirks.renamedParams ?? {})) {
    if (body[ours] === undefined) continue;
    body[theirs] = body[ours];
    delete body[ours];
  }
  if (!quirks.newToolKinds && usesNewToolKinds(call)) {
    const { tools, choice } = portableTools(call, quirks.name);
    if (tools) body.tools = tools;
    else delete body.tools;
    if (choice) body.tool_choice = choice;
    else delete body.tool_choice;
  }
  body.messages = withoutReasoningState(
    body.messages as ChatCompletionCreateParamsBase['messages'],
    quirks.acceptsReasoningContent ?? false,
  );
  if (quirks.nineCharToolCallIds)
    body.messages = rewriteToolCallIds(body.messages as ChatCompletionCreateParamsBase['messages']);
  applyWebSearch(call, body, quirks);
  applyReasoning(call, body, quirks);
  // Set only when there is one: a key added, then deleted, leaves the body in V8's slow dictionary form, and its
  // JSON.stringify took twice as long (0.4 -> 0.9 µs in a hot loop; docs/performance.md).
  const responseFormat = strictResponseFormat(body.response_format, call, quirks.name);
  if (responseFormat !== undefined) body.response_format = responseFormat;
  else if ('response_format' in body) delete body.response_format;
  if (body.tools) body.tools = strictTools(body.tools as ChatCompletionTool[], call, quirks.name);
  return body as unknown as ChatCompletionCreateParamsBase;
}

function usesNewToolKinds(call: ProviderCall): boolean {
  const choice = call.body.tool_choice;
  return (
    (typeof choice === 'object' && choice.type !== 'function') ||
    (call.body.tools?.some((tool) => tool.type !== 'function') ?? false)
  );
}

/** Effort-controlled models take `reasoning_effort`; DeepSeek is switched off with its own field. */
function applyReasoning(call: ProviderCall, body: Record<string, unknown>, quirks: OpenAIFamilyQuirks): void {
  const choice = chooseReasoning(call, quirks.name, {
    controls: ['effort'],
    levelSwitchOff: quirks.disableReasoning !== undefined,
  });
  if (choice?.kind === 'level') body.reasoning_effort = choice.level;
  else if (choice?.kind === 'off') Object.assign(body, quirks.disableReasoning);
}

/**
 * Assistant messages sent back as they were returned carry our extension fields (`reasoning_details`, `parsed`,
 * `images` and `reasoning_content`), a tool result from the Messages API its `is_error`, and the Responses API's
 * instructions their mark; strip what this provider would reject. Messages without them pass as they are, uncopied.
 */
function withoutReasoningState(
  messages: ChatCompletionCreateParamsBase['messages'],
  keepContent: boolean,
): ChatCompletionCreateParamsBase['messages'] {
  const carries = (message: object) =>
    'reasoning_details' in message ||
    'parsed' in message ||
    'images' in message ||
    'is_error' in message ||
    'from_instructions' in message ||
    (!keepContent && 'reasoning_content' in message);
  if (!messages.some(carries)) return messages;
  return messages.map((message) => {
    if (!carries(message)) return message;
    if (message.role === 'tool' || message.role === 'system') {
      const {
        is_error: _error,
        from_instructions: _instructions,
        ...rest
      } = message as typeof message & {
        is_error?: unknown;
        from_instructions?: unknown;
      };
      return rest as typeof message;
    }
    const {
      reasoning_details: _details,
      parsed: _parsed,
      images: _images,
      reasoning_content: content,
      ...rest
    } = message as typeof message & {
      reasoning_details?: unknown;
      parsed?: unknown;
      images?: unknown;
      reasoning_content?: unknown;
    };
    return (keepContent && content !== undefined ? { ...rest, reasoning_content: content } : rest) as typeof message;
  });
}

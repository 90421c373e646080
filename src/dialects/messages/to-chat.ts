import type Anthropic from '@anthropic-ai/sdk';
import { InvalidRequestError } from '../../errors.ts';
import { toBase64 } from '../../internal/bytes.ts';
import { CLAUDE_REASONING_FORMAT as CLAUDE_REASONING } from '../../providers/reasoning-format.ts';
import { sameNamedParameters } from '../../request/request-parameters.ts';
import { type FieldPath, noteUnknownFields, warnUnknownFields } from '../../request/unknown-fields.ts';
import type { CompletionMessageParam, CompletionRequest, CompletionWarning, ReasoningDetail } from '../../types.ts';
import { copySameNamedFields } from '../switchyard-fields.ts';
import { MovedToolMedia, type UserPart as Part } from '../tool-media.ts';
import { marked } from './cache-mark.ts';
import { applyTools } from './tools-to-chat.ts';
import { validateMessagesBody } from './validate.ts';

/**
 * A Messages API request as a chat completion request: the same call, for every model. What chat has no field for
 * is named in `warnings` (`top_k`) or refused with a 400 (server tools, content kinds no provider here takes).
 */
export function messagesToChat(params: Anthropic.MessageCreateParams): {
  request: CompletionRequest;
  warnings: CompletionWarning[];
} {
  validateMessagesBody(params);
  const warnings: CompletionWarning[] = [];
  const messages: CompletionMessageParam[] = [];
  const system = systemMessage(params.system);
  if (system) messages.push(system);
  params.messages.forEach((message, index) => {
    const at = `messages[${index}]`;
    if (message.role === 'assistant') messages.push(assistantMessage(message, at));
    else if (message.role === 'system') {
      // Where it was: each provider passes it on there, or merges it into its system prompt.
      const mid = systemMessage(message.content);
      if (mid) messages.push(mid);
    } else for (const translated of userMessages(message, at, warnings)) messages.push(translated);
  });

  const request: CompletionRequest = { model: params.model, messages, max_tokens: params.max_tokens };
  // temperature, top_p and Switchyard's own fields. Sampling parameters left the Messages API's types in its
  // 2026-10-21 version; clients written before still send them, and other models still take them.
  copySameNamedFields('messages', params, request);
  if (params.stop_sequences?.length) request.stop = params.stop_sequences;
  if (params.metadata?.user_id) request.user = params.metadata.user_id;
  if (params.service_tier) request.service_tier = params.service_tier === 'auto' ? 'auto' : 'default';
  if ((params as { top_k?: number | null }).top_k != null) {
    warnings.push({
      code: 'unsupported_parameter',
      param: 'top_k',
      message: 'top_k has no equivalent across providers; it was not sent.',
    });
  }
  if ((params as { context_management?: unknown }).context_management != null) {
    warnings.push({
      code: 'unsupported_parameter',
      param: 'context_management',
      message: "context_management (Anthropic's context editing) was not sent: the conversation goes as it is.",
    });
  }
  applyTools(params, request, warnings);
  applyThinking(params, request, warnings);
  // `output_format` is the structured outputs beta's name for what `output_config.format` now holds.
  const beta = (params as { output_format?: Anthropic.JSONOutputFormat | null }).output_format;
  const format = params.output_config?.format ?? beta;
  if (format?.type === 'json_schema') {
    request.response_format = {
      type: 'json_schema',
      json_schema: { name: 'output', schema: format.schema, strict: true },
    };
  }
  if (params.stream) Object.assign(request, { stream: true, stream_options: { include_usage: true } });
  // Named as chat and the Responses API name theirs: the first 20, each name cut short, then a count.
  const unknown: FieldPath[] = [];
  const known = (field: string) => TAKEN.has(field) || SAME_NAMED.has(field);
  const body = params as unknown as Record<string, unknown>;
  noteUnknownFields(body, known, () => [], { unknownField: (path) => unknown.push(path) });
  warnUnknownFields(unknown, { warn: (warning) => warnings.push(warning) });
  return { request, warnings };
}

/** The Messages fields translated here, or dropped with their own warning; the same-named ones are copied. */
const TAKEN = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'output_format',
  'stop_sequences',
  'metadata',
  'service_tier',
  'stream',
  'top_k',
  'context_management',
]);
const SAME_NAMED = new Set(sameNamedParameters('messages').map(([field]) => field));

function systemMessage(system: Anthropic.MessageCreateParams['system']): CompletionMessageParam | undefined {
  if (system == null || system === '') return undefined;
  if (typeof system === 'string') return { role: 'system', content: system };
  return { role: 'system', content: system.map((block) => marked({ type: 'text', text: block.text }, block)) };
}

/**
 * A user turn: its tool results as `tool` messages first (chat's order), then the rest as one user message, led by
 * the images and documents of the results (a tool message holds text only).
 */
function userMessages(
  message: Anthropic.MessageParam,
  at: string,
  warnings: CompletionWarning[],
): CompletionMessageParam[] {
  if (typeof message.content === 'string') return [{ role: 'user', content: message.content }];
  const results: CompletionMessageParam[] = [];
  const parts: Part[] = [];
  const moved = new MovedToolMedia();
  message.content.forEach((block, index) => {
    const blockAt = `${at}.content[${index}]`;
    if (block.type === 'tool_result') results.push(toolMessage(block, blockAt, moved, warnings));
    else parts.push(userPart(block, blockAt));
  });
  const content = [...moved.take(), ...parts];
  if (content.length > 0) results.push({ role: 'user', content });
  return results;
}

function toolMessage(
  block: Anthropic.ToolResultBlockParam,
  at: string,
  moved: MovedToolMedia,
  warnings: CompletionWarning[],
): CompletionMessageParam {
  const content = block.content;
  if (content !== undefined && typeof content !== 'string' && !Array.isArray(content))
    throw new InvalidRequestError(`${at}.content: a tool result is a string or a list of blocks.`, `${at}.content`);
  const texts: string[] = typeof content === 'string' ? [content] : [];
  const media: Part[] = [];
  if (Array.isArray(content)) {
    content.forEach((inner, index) => {
      const innerAt = `${at}.content[${index}]`;
      // Tool search's result (Claude Code's ToolSearch): every tool is sent up front here, so it is loaded.
      if (inner.type === 'tool_reference') texts.push(`Tool "${inner.tool_name}" loaded.`);
      else if (inner.type === 'text') texts.push(inner.text);
      else if (inner.type === 'image' || inner.type === 'document') media.push(userPart(inner, innerAt));
      else {
        throw new InvalidRequestError(
          `${innerAt}: a tool result holds text, images and documents; "${inner.type}" is not supported here.`,
          `${at}.content`,
        );
      }
    });
  }
  const text = moved.move(block.tool_use_id, texts.join('\n'), media, `${at}.content`, warnings);
  const tool: CompletionMessageParam = { role: 'tool', tool_call_id: block.tool_use_id, content: text };
  // `is_error` reaches Anthropic as it is; other providers see the text alone.
  if (block.is_error) Object.assign(tool, { is_error: true });
  return marked(tool, block);
}

function userPart(block: Anthropic.ContentBlockParam, at: string): Part {
  switch (block.type) {
    case 'text':
      return marked({ type: 'text', text: block.text }, block);
    case 'image': {
      const source = block.source;
      if (source.type !== 'base64' && source.type !== 'url')
        throw new InvalidRequestError(`${at}: images are taken as base64 data or a URL, not a file id.`, at);
      const url = source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url;
      return marked({ type: 'image_url', image_url: { url } }, block);
    }
    case 'document': {
      const source = block.source;
      const data =
        source.type === 'base64'
          ? `data:${source.media_type};base64,${source.data}`
          : source.type === 'text'
            ? `data:text/plain;base64,${toBase64(source.data)}`
            : undefined;
      if (!data) {
        throw new InvalidRequestError(
          `${at}: documents are taken as base64 PDF or plain text; a "${source.type}" source is not.`,
          at,
        );
      }
      return marked(
        { type: 'file', file: { file_data: data, ...(block.title ? { filename: block.title } : {}) } },
        block,
      );
    }
    default:
      throw new InvalidRequestError(`${at}: "${block.type}" content is not supported by this gateway.`, at);
  }
}

/**
 * An assistant turn: its text, its tool calls, and its thinking as reasoning details in the Anthropic adapter's
 * format, which restores the blocks, signatures included, when the turn goes back to Claude.
 */
function assistantMessage(message: Anthropic.MessageParam, at: string): CompletionMessageParam {
  if (typeof message.content === 'string') return { role: 'assistant', content: message.content };
  const texts: string[] = [];
  const details: ReasoningDetail[] = [];
  const toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> = [];
  message.content.forEach((block, index) => {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'thinking')
      details.push({
        type: 'reasoning.text',
        format: CLAUDE_REASONING,
        text: block.thinking,
        signature: block.signature,
      });
    else if (block.type === 'redacted_thinking')
      details.push({ type: 'reasoning.encrypted', format: CLAUDE_REASONING, data: block.data });
    else if (block.type === 'tool_use') {
      const input = JSON.stringify(block.input ?? {});
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: input } });
    } else {
      throw new InvalidRequestError(`${at}.content[${index}]: "${block.type}" is not supported by this gateway.`, at);
    }
  });
  const assistant: Record<string, unknown> = { role: 'assistant', content: texts.length > 0 ? texts.join('') : null };
  if (toolCalls.length > 0) assistant.tool_calls = toolCalls;
  if (details.length > 0) assistant.reasoning_details = details;
  return assistant as CompletionMessageParam;
}

/** `thinking` as the neutral reasoning setting: a budget, off, or (adaptive) the effort of `output_config`. */
function applyThinking(
  params: Anthropic.MessageCreateParams,
  request: CompletionRequest,
  warnings: CompletionWarning[],
): void {
  const thinking = params.thinking;
  if (thinking?.type === 'between_tools') {
    warnings.push({
      code: 'unsupported_parameter',
      param: 'thinking',
      message: 'thinking "between_tools" has no provider-neutral form; the model reasons as it does by default.',
    });
  }
  const effort = params.output_config?.effort;
  if (thinking?.type === 'enabled') request.reasoning = { budget: thinking.budget_tokens };
  else if (thinking?.type === 'disabled') request.reasoning = { effort: 'disabled' };
  else if (thinking?.type === 'adaptive' || effort) request.reasoning = { effort: effort ?? 'high' };
}

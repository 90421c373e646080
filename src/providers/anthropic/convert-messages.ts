import type Anthropic from '@anthropic-ai/sdk';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { InvalidRequestError } from '../../errors.ts';
import { textFromBase64 } from '../../internal/bytes.ts';
import type { CacheControl, CompletionWarning, ReasoningDetail } from '../../types.ts';
import { CLAUDE_REASONING_FORMAT } from '../reasoning-format.ts';

/** OpenAI messages as Anthropic's: the system prompt apart, alternating turns, content blocks, thinking restored. */

type Block = Anthropic.ContentBlockParam;

interface Turn {
  role: 'user' | 'assistant' | 'system';
  content: Block[];
}

/**
 * Where a system (or developer) message after the conversation began goes: a system turn in its place, as Anthropic's
 * API takes it, or (`inTurns` false: Converse, Vertex AI) the top-level `system`, told to `merged` with its path.
 */
export interface SystemPlacement {
  inTurns: boolean;
  merged?: (at: string) => void;
}

/**
 * System and developer messages before the first turn become the top-level `system`, later ones go as `placement`
 * says; the rest become alternating user/assistant turns.
 */
export function convertMessages(
  messages: ChatCompletionMessageParam[],
  placement: SystemPlacement = { inTurns: false },
): {
  system: Anthropic.TextBlockParam[];
  messages: Anthropic.MessageParam[];
} {
  const system: Anthropic.TextBlockParam[] = [];
  const turns: Turn[] = [];
  const add = (role: Turn['role'], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    // Anthropic wants alternating turns: consecutive messages of one role (tool results and the user text after them)
    // merge.
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  messages.forEach((message, index) => {
    const at = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const blocks = withMessageMark(systemBlocks(message.content), message);
        if (turns.length === 0) system.push(...blocks);
        else if (placement.inTurns) add('system', blocks);
        else {
          system.push(...blocks);
          if (blocks.length > 0) placement.merged?.(at);
        }
        break;
      }
      case 'user':
        add('user', withMessageMark(userBlocks(message.content, at), message));
        break;
      case 'assistant':
        add('assistant', withMessageMark(assistantBlocks(message, at), message));
        break;
      case 'tool': {
        const texts = textsOf(message.content).filter((text) => text !== '');
        const result: Anthropic.ToolResultBlockParam = {
          type: 'tool_result',
          tool_use_id: toolUseId(message.tool_call_id),
        };
        if (typeof message.content === 'string') {
          if (message.content !== '') result.content = message.content;
        } else if (texts.length > 0) result.content = texts.map((text) => ({ type: 'text', text }));
        // A tool result that came through the Messages API keeps its error flag.
        if ((message as { is_error?: unknown }).is_error === true) result.is_error = true;
        add('user', withMessageMark([result], message));
        break;
      }
      default:
        throw new InvalidRequestError(
          `${at}: the legacy "function" role cannot be sent to Anthropic; send the result as a "tool" message with ` +
            `tool_call_id.`,
          `${at}.role`,
        );
    }
  });
  return { system, messages: turns.map(finishTurn) };
}

function finishTurn(turn: Turn): Anthropic.MessageParam {
  if (turn.role === 'system') {
    const blocks = turn.content as Anthropic.TextBlockParam[];
    const only = blocks.length === 1 ? blocks[0] : undefined;
    return { role: 'system', content: only && !only.cache_control ? only.text : blocks };
  }
  // Tool results must open the user turn that answers the tool calls.
  const content =
    turn.role === 'user'
      ? [
          ...turn.content.filter((block) => block.type === 'tool_result'),
          ...turn.content.filter((block) => block.type !== 'tool_result'),
        ]
      : turn.content;
  const only = content.length === 1 ? content[0] : undefined;
  return { role: turn.role, content: only?.type === 'text' && !only.cache_control ? only.text : content };
}

/** Text parts of a system or developer message as system blocks, each with its breakpoint. */
function systemBlocks(content: string | Array<{ type: string; text?: string }>): Anthropic.TextBlockParam[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.flatMap((part) => (part.text ? [marked({ type: 'text', text: part.text }, part)] : []));
}

/**
 * A breakpoint on a whole message (the form LiteLLM and OpenRouter take for a string content) goes on its last
 * block that can hold one: thinking blocks cannot.
 */
function withMessageMark<B extends Block>(blocks: B[], message: object): B[] {
  const last = blocks.findLast((block) => block.type !== 'thinking' && block.type !== 'redacted_thinking');
  if (last) marked(last, message);
  return blocks;
}

/** `block` with the caller's `cache_control` from `source` in Anthropic's form, if `source` has one. */
function marked<B extends Block>(block: B, source: object): B {
  const control = (source as { cache_control?: CacheControl }).cache_control;
  if (control) {
    (block as { cache_control?: Anthropic.CacheControlEphemeral }).cache_control = control.ttl
      ? { type: 'ephemeral', ttl: control.ttl }
      : { type: 'ephemeral' };
  }
  return block;
}

function textsOf(content: string | Array<{ type: string; text?: string }> | null | undefined): string[] {
  if (content == null) return [];
  if (typeof content === 'string') return [content];
  return content.map((part) => (part.type === 'text' ? (part.text ?? '') : ''));
}

function userBlocks(content: string | ChatCompletionContentPart[], at: string): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const blocks: Block[] = [];
  content.forEach((part, partIndex) => {
    const partAt = `${at}.content[${partIndex}]`;
    if (part.type === 'text') {
      if (part.text !== '') blocks.push(marked({ type: 'text', text: part.text }, part));
    } else if (part.type === 'image_url') blocks.push(marked(imageBlock(part.image_url.url, partAt), part));
    else if (part.type === 'file') blocks.push(marked(documentBlock(part.file, partAt), part));
    else throw new InvalidRequestError(`${partAt}: Anthropic does not take "${part.type}" content.`, partAt);
  });
  return blocks;
}

const DATA_URI = /^data:([^;,]+)(?:;[^,;]*)*;base64,(.*)$/s;

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;

function imageBlock(url: string, at: string): Anthropic.ImageBlockParam {
  const data = DATA_URI.exec(url);
  if (data) {
    const mediaType = data[1]!.toLowerCase() as (typeof IMAGE_TYPES)[number];
    if (!IMAGE_TYPES.includes(mediaType)) {
      throw new InvalidRequestError(
        `${at}: Anthropic takes JPEG, PNG, GIF and WebP images, not ${data[1]}.`,
        `${at}.image_url`,
      );
    }
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: data[2]! } };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw new InvalidRequestError(`${at}.image_url.url must be an https URL or a base64 data: URI.`, `${at}.image_url`);
}

function documentBlock(file: ChatCompletionContentPart.File.File, at: string): Anthropic.DocumentBlockParam {
  const data = file.file_data ? DATA_URI.exec(file.file_data) : null;
  const title = file.filename ? { title: file.filename } : {};
  if (data?.[1] === 'application/pdf')
    return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: data[2]! }, ...title };
  if (data?.[1] === 'text/plain') {
    return {
      type: 'document',
      source: { type: 'text', media_type: 'text/plain', data: textFromBase64(data[2]!) },
      ...title,
    };
  }
  throw new InvalidRequestError(
    `${at}: Anthropic takes files as base64 data: URIs of PDF or plain text in file.file_data (OpenAI file ids mean ` +
      `nothing to it).`,
    `${at}.file`,
  );
}

type AssistantMessage = ChatCompletionAssistantMessageParam & { reasoning_details?: ReasoningDetail[] };

function assistantBlocks(message: AssistantMessage, at: string): Block[] {
  // Thinking must travel back unmodified and first in the turn, or Anthropic rejects a tool loop with thinking on.
  const blocks: Block[] = restoredThinking(message.reasoning_details);
  if (typeof message.content === 'string') {
    if (message.content !== '') blocks.push({ type: 'text', text: message.content });
  } else if (message.content) {
    for (const part of message.content) {
      const text = part.type === 'text' ? part.text : part.refusal;
      if (text !== '') blocks.push({ type: 'text', text });
    }
  } else if (message.refusal) blocks.push({ type: 'text', text: message.refusal });
  if (message.function_call) {
    throw new InvalidRequestError(
      `${at}.function_call (legacy function calling) cannot be sent to Anthropic; use tool_calls.`,
      `${at}.function_call`,
    );
  }
  message.tool_calls?.forEach((toolCall, callIndex) => {
    const callAt = `${at}.tool_calls[${callIndex}]`;
    if (toolCall.type !== 'function')
      throw new InvalidRequestError(`${callAt}: Anthropic takes only function tool calls.`, callAt);
    blocks.push({
      type: 'tool_use',
      id: toolUseId(toolCall.id),
      name: toolCall.function.name,
      input: parseArguments(toolCall.function.arguments, `${callAt}.function.arguments`),
    });
  });
  return blocks;
}

function restoredThinking(details: ReasoningDetail[] | undefined): Block[] {
  const blocks: Block[] = [];
  for (const detail of details ?? []) {
    if (detail.format !== CLAUDE_REASONING_FORMAT) continue;
    if (detail.type === 'reasoning.text' && detail.signature) {
      blocks.push({ type: 'thinking', thinking: detail.text ?? '', signature: detail.signature });
    } else if (detail.type === 'reasoning.encrypted' && detail.data)
      blocks.push({ type: 'redacted_thinking', data: detail.data });
  }
  return blocks;
}

function parseArguments(json: string, at: string): Record<string, unknown> {
  if (json.trim() === '') return {};
  let input: unknown;
  try {
    input = JSON.parse(json);
  } catch (error) {
    throw new InvalidRequestError(
      `${at} is not valid JSON (${(error as Error).message}); Anthropic needs the arguments as an object.`,
      at,
    );
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidRequestError(`${at} must be a JSON object; Anthropic tool inputs are objects.`, at);
  }
  return input as Record<string, unknown>;
}

/** Anthropic tool-use ids are `[a-zA-Z0-9_-]+`; ids from other providers are made to fit, the same way each time. */
function toolUseId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'tool_call';
}

/** The warning of a system message after the first turn that joined the top-level system prompt. */
export function mergedSystemMessage(at: string, where: string): CompletionWarning {
  return {
    code: 'converted_parameter',
    param: at,
    message: `${where} takes system text only before the conversation: the system message at ${at} joined it.`,
  };
}

import type { ChatCompletionCreateParamsBase, ChatCompletionMessageParam } from 'openai/resources/chat/completions';

/** A tool the request offers, as the simulator reads it. */
export interface OfferedTool {
  kind: 'function' | 'custom';
  name: string;
  description: string;
  /** A function tool's JSON Schema. */
  parameters?: Record<string, unknown>;
  /** A custom tool's input grammar; none: free text. */
  grammar?: { syntax: string; definition: string };
}

/** The conversation as the simulator reads it: the user's request, and the tools that answered it so far. */
export interface Turn {
  /** The user's words: the last user message with text of its own (`<system-reminder>` blocks are not the user's). */
  request: string;
  /** The tools whose results came back after the request, in order (a name once per result). */
  answered: string[];
  /** The result the conversation ends with, when it ends with one. */
  lastResult?: { name: string; content: string };
}

type Body = Pick<ChatCompletionCreateParamsBase, 'messages' | 'tools'>;

export function offeredTools({ tools }: Body): OfferedTool[] {
  return (tools ?? []).flatMap((tool): OfferedTool[] => {
    if (tool.type === 'function') {
      const { name, description = '', parameters } = tool.function;
      return [{ kind: 'function', name, description, ...(parameters ? { parameters } : {}) }];
    }
    if (tool.type !== 'custom') return [];
    const { name, description = '', format } = tool.custom;
    return [{ kind: 'custom', name, description, ...grammarOf(format) }];
  });
}

/**
 * A custom tool's grammar, in chat's form (`{ type: "grammar", grammar: { syntax, definition } }`) or the Responses
 * API's (`{ type: "grammar", syntax, definition }`), which its translation may carry as it is.
 */
function grammarOf(format: unknown): Pick<OfferedTool, 'grammar'> {
  if (typeof format !== 'object' || format === null || (format as { type?: unknown }).type !== 'grammar') return {};
  const spec = (format as { grammar?: unknown }).grammar ?? format;
  const { syntax, definition } = spec as { syntax?: unknown; definition?: unknown };
  return typeof syntax === 'string' && typeof definition === 'string' ? { grammar: { syntax, definition } } : {};
}

export function readTurn({ messages }: Body): Turn {
  let at = messages.length - 1;
  while (at >= 0 && !(messages[at]!.role === 'user' && userWords(messages[at]!) !== '')) at -= 1;
  const request = at >= 0 ? userWords(messages[at]!) : '';
  const names = new Map<string, string>();
  const answered: string[] = [];
  let lastResult: Turn['lastResult'];
  for (const message of messages.slice(at + 1)) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? [])
        names.set(call.id, call.type === 'custom' ? call.custom.name : call.function.name);
    } else if (message.role === 'tool') {
      const name = names.get(message.tool_call_id);
      if (name === undefined) continue;
      answered.push(name);
      lastResult = { name, content: textOf(message.content) };
    }
  }
  if (messages.at(-1)?.role !== 'tool') lastResult = undefined;
  return { request, answered, ...(lastResult ? { lastResult } : {}) };
}

const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

function userWords(message: ChatCompletionMessageParam): string {
  return textOf(message.content).replace(REMINDER, '').trim();
}

/** The text of a message's content: a string, or its text parts joined. */
export function textOf(content: ChatCompletionMessageParam['content'] | undefined): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join(' ')
    .trim();
}

/** The first file name the text holds (a word with an extension, maybe with a directory), for tools that take one. */
export function fileNamed(text: string): string | undefined {
  return /(?:^|[\s`'"(])((?:[\w.-]+\/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7})(?=$|[\s`'",:;)!?]|\.(?:\s|$))/.exec(text)?.[1];
}

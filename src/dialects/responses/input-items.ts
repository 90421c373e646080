import type { ResponseCreateParams, ResponseInputItem } from 'openai/resources/responses/responses';
import { InvalidRequestError } from '../../errors.ts';
import type { CompletionMessageParam, CompletionWarning, ReasoningDetail } from '../../types.ts';
import { MovedToolMedia, type UserPart as Part } from '../tool-media.ts';
import { sentToolName } from './namespace-tools.ts';
import { decodeReasoningState } from './reasoning-state.ts';

type ToolCall =
  | { id: string; type: 'function'; function: { name: string; arguments: string } }
  | { id: string; type: 'custom'; custom: { name: string; input: string } };
type Assistant = {
  role: 'assistant';
  content: string | null;
  tool_calls?: ToolCall[];
  reasoning_details?: ReasoningDetail[];
};

/** `input` (a string, or items: messages, function calls and their outputs, reasoning items) onto `messages`. */
export function inputMessages(
  input: ResponseCreateParams['input'],
  messages: CompletionMessageParam[],
  warnings: CompletionWarning[],
): void {
  if (input === undefined || input === null) return;
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input });
    return;
  }
  let assistant: Assistant | undefined;
  const moved = new MovedToolMedia();
  // The images and files of the tool outputs just before: after them, before any other message.
  const follow = () => {
    const parts = moved.take();
    if (parts.length > 0) messages.push({ role: 'user', content: parts });
  };
  // The assistant turn being built: text, function calls and reasoning items arrive as separate items.
  const turn = (): Assistant => {
    if (!assistant) {
      follow();
      assistant = { role: 'assistant', content: null };
      messages.push(assistant as CompletionMessageParam);
    }
    return assistant;
  };
  input.forEach((item, index) => {
    const at = `input[${index}]`;
    const type = (item as { type?: string }).type ?? 'message';
    if (type === 'message' && (item as { role?: string }).role === 'assistant') {
      const text = assistantText(item, at);
      const current = turn();
      current.content = (current.content ?? '') + text;
      return;
    }
    if (type === 'function_call' || type === 'custom_tool_call') {
      const call = item as { call_id: string; name: string; namespace?: string; arguments?: string; input?: string };
      const name = sentToolName(call);
      const current = turn();
      // Appended in place: one list per turn, however many calls it has.
      current.tool_calls ??= [];
      current.tool_calls.push(
        type === 'function_call'
          ? { id: call.call_id, type: 'function', function: { name, arguments: call.arguments! } }
          : { id: call.call_id, type: 'custom', custom: { name, input: call.input! } },
      );
      return;
    }
    // Their tools and settings are read apart (`applyTools`, `applyConfigurationUpdate`).
    if (type === 'additional_tools' || type === 'configuration_update') return;
    if (type === 'reasoning') {
      const reasoning = item as Extract<ResponseInputItem, { type: 'reasoning' }>;
      const details = decodeReasoningState(reasoning.encrypted_content);
      if (details.length === 0) return;
      const current = turn();
      current.reasoning_details ??= [];
      for (const detail of details) current.reasoning_details.push(detail);
      return;
    }
    assistant = undefined;
    if (type === 'message') {
      follow();
      messages.push(inputMessage(item as unknown as { role: string; content: unknown }, at, warnings));
    } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      const output = item as ResponseInputItem.FunctionCallOutput;
      const { text, media } = outputParts(output.output, at);
      const content = moved.move(String(output.call_id), text, media, `${at}.output`, warnings);
      messages.push({ role: 'tool', tool_call_id: String(output.call_id), content });
    } else {
      throw new InvalidRequestError(
        `${at}: "${type}" items are not supported by this gateway (messages, function and custom tool calls and ` +
          'their outputs, and reasoning items are).',
        at,
      );
    }
  });
  follow();
}

function inputMessage(
  item: { role: string; content: unknown },
  at: string,
  warnings: CompletionWarning[],
): CompletionMessageParam {
  const role = item.role as 'user' | 'system' | 'developer';
  if (typeof item.content === 'string') return { role, content: item.content } as CompletionMessageParam;
  if (!Array.isArray(item.content)) throw new InvalidRequestError(`${at}.content must be a string or a list.`, at);
  const parts = item.content.map((part: Record<string, unknown>, index: number) =>
    inputPart(part, `${at}.content[${index}]`),
  );
  if (role !== 'user') {
    // A system or developer message is text in chat: an image or file in it cannot be sent there.
    parts.forEach((part, index) => {
      if (part.type === 'text') return;
      const message = `A ${role} message takes text only: its ${part.type} part was dropped (send it as the user).`;
      warnings.push({ code: 'unsupported_parameter', param: `${at}.content[${index}]`, message });
    });
    const texts = parts.map((part) => (part.type === 'text' ? part.text : ''));
    return { role, content: texts.join('') } as CompletionMessageParam;
  }
  return { role, content: parts };
}

/** A content part of an input message; validate.ts has checked its shape. */
function inputPart(part: Record<string, unknown>, at: string): Part {
  const { type, text, image_url, detail, file_data, filename } = part;
  if (type === 'input_text' || type === 'output_text') return { type: 'text', text: text as string };
  if (type === 'input_image' && typeof image_url === 'string') {
    const level = detail === 'low' || detail === 'high' ? { detail: detail as 'low' | 'high' } : {};
    return { type: 'image_url', image_url: { url: image_url, ...level } };
  }
  if (type === 'input_file' && typeof file_data === 'string') {
    return { type: 'file', file: { file_data, ...(filename ? { filename: filename as string } : {}) } };
  }
  throw new InvalidRequestError(
    `${at}: "${String(type)}" content ${part.file_id ? 'by file id ' : ''}is not supported by this gateway ` +
      '(input_text, input_image by URL or data URI, and input_file with file_data are).',
    at,
  );
}

function assistantText(item: unknown, at: string): string {
  const content = (item as { content: unknown }).content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw new InvalidRequestError(`${at}.content must be a string or a list.`, at);
  return content
    .map((part: { type: string; text?: string; refusal?: string }) => part.text ?? part.refusal ?? '')
    .join('');
}

/** A function output's text, and its images and files, which a tool message cannot hold. */
function outputParts(output: unknown, at: string): { text: string; media: Part[] } {
  if (typeof output === 'string') return { text: output, media: [] };
  if (!Array.isArray(output)) throw new InvalidRequestError(`${at}.output must be a string or a list.`, at);
  const texts: string[] = [];
  const media: Part[] = [];
  output.forEach((part: Record<string, unknown>, index: number) => {
    const partAt = `${at}.output[${index}]`;
    if (part.type === 'input_text') texts.push((part.text as string | undefined) ?? '');
    else if (part.type === 'input_image' || part.type === 'input_file') media.push(inputPart(part, partAt));
    else {
      throw new InvalidRequestError(
        `${partAt}: a function output holds input_text, input_image and input_file parts, not "${String(part.type)}".`,
        partAt,
      );
    }
  });
  return { text: texts.join(''), media };
}

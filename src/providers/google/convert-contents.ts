import type { Content, Part } from '@google/genai';
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import { InvalidRequestError } from '../../errors.ts';
import { toBase64 } from '../../internal/bytes.ts';
import type { ReasoningDetail } from '../../types.ts';
import type { ProviderCall } from '../provider.ts';

/** OpenAI messages as Gemini contents: the system instruction apart, parts, function calls and their results. */

/** Google's documented placeholder for a function call whose history never had a thought signature. */
const DUMMY_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

type AssistantMessage = Extract<ChatCompletionMessageParam, { role: 'assistant' }> & {
  reasoning_details?: ReasoningDetail[];
  /** The model's own pictures, sent back for an image model to edit them (`message.images` as returned). */
  images?: Array<{ image_url?: { url?: unknown } }>;
};

export function toContents(
  messages: ChatCompletionMessageParam[],
  call: ProviderCall,
): { systemParts: Part[]; contents: Content[] } {
  const systemParts: Part[] = [];
  const contents: Content[] = [];
  /** tool_call_id → function name, from the assistant messages seen so far (Gemini needs the name on the result). */
  const toolNames = new Map<string, string>();
  const levelControl = call.model.reasoning?.control === 'level';
  /** The user turn that collects consecutive tool results, while it is the last turn. */
  let resultsTurn: Content | undefined;

  messages.forEach((message, index) => {
    const at = `messages[${index}]`;
    if (message.role === 'tool' || message.role === 'function') {
      const name = message.role === 'tool' ? toolNames.get(message.tool_call_id) : message.name;
      if (!name) {
        throw new InvalidRequestError(
          `${at} answers tool_call_id "${(message as { tool_call_id?: string }).tool_call_id}", which no earlier ` +
            `assistant message called. ` +
            'Gemini needs the function name of every tool result.',
          `${at}.tool_call_id`,
        );
      }
      const part: Part = {
        functionResponse: {
          ...(message.role === 'tool' ? { id: message.tool_call_id } : {}),
          name,
          response: toFunctionResponse(textOf(message.content)),
        },
      };
      if (resultsTurn && contents.at(-1) === resultsTurn) resultsTurn.parts!.push(part);
      else contents.push((resultsTurn = { role: 'user', parts: [part] }));
      return;
    }
    if (message.role === 'system' || message.role === 'developer') {
      const text = textOf(message.content);
      if (!text) return;
      systemParts.push({ text });
      // Gemini has no system turns: one after the conversation began joins the system instruction, never lost.
      if (contents.length > 0) {
        call.warn({
          code: 'converted_parameter',
          param: at,
          message: `Gemini takes system text only as its system instruction: the system message at ${at} joined it.`,
        });
      }
      return;
    }
    if (message.role === 'user') {
      const parts =
        typeof message.content === 'string'
          ? [{ text: message.content }]
          : message.content.map((part, partIndex) => toUserPart(part, `${at}.content[${partIndex}]`));
      contents.push({ role: 'user', parts });
      return;
    }
    const parts = toModelParts(message as AssistantMessage, toolNames, levelControl, call, at);
    if (parts.length > 0) contents.push({ role: 'model', parts });
  });
  return { systemParts, contents };
}

function toModelParts(
  message: AssistantMessage,
  toolNames: Map<string, string>,
  levelControl: boolean,
  call: ProviderCall,
  at: string,
): Part[] {
  const parts: Part[] = [];
  const text = textOf(message.content);
  if (text) parts.push({ text });
  for (const image of message.images ?? []) {
    const match = /^data:([^;,]+);base64,(.*)$/s.exec(String(image?.image_url?.url ?? ''));
    if (match) parts.push({ inlineData: { mimeType: match[1]!, data: match[2]! } });
    else
      call.warn({
        code: 'unsupported_content',
        param: `${at}.images`,
        message: `${at}: an answered image that is not a base64 data URL was not sent back to Gemini.`,
      });
  }
  const calls: Array<{ id?: string; name: string; arguments: string }> = [];
  for (const toolCall of (message.tool_calls ?? []) as ChatCompletionMessageToolCall[]) {
    if (toolCall.type !== 'function') {
      throw new InvalidRequestError(
        `${at}: Gemini has no custom (free-form) tools; only function tool calls can be sent.`,
        `${at}.tool_calls`,
      );
    }
    toolNames.set(toolCall.id, toolCall.function.name);
    calls.push({ id: toolCall.id, name: toolCall.function.name, arguments: toolCall.function.arguments });
  }
  if (message.function_call)
    calls.push({ name: message.function_call.name, arguments: message.function_call.arguments });
  for (const { id, name, arguments: args } of calls) {
    parts.push({ functionCall: { ...(id !== undefined ? { id } : {}), name, args: toArgs(args, call, at) } });
  }

  // Thought signatures travel back on the part that carried them: a function call's own, or the turn's first part.
  const details = (message.reasoning_details ?? [])
    .filter(
      (detail): detail is ReasoningDetail & { signature: string } =>
        detail?.format === 'google' && typeof detail.signature === 'string',
    )
    // A function call's own signature first, so a turn-level one cannot take its place.
    .sort((a, b) => Number(a.tool_call_id === undefined) - Number(b.tool_call_id === undefined));
  for (const detail of details) {
    const unsigned = (part: Part) => part.thoughtSignature === undefined;
    const target =
      detail.tool_call_id !== undefined
        ? parts.find((part) => part.functionCall?.id === detail.tool_call_id)
        : (parts.find((part) => !part.functionCall && unsigned(part)) ?? parts.find(unsigned));
    if (target) target.thoughtSignature = detail.signature;
    else if (detail.tool_call_id === undefined && parts.length === 0)
      parts.push({ text: '', thoughtSignature: detail.signature });
  }
  // Gemini 3 rejects a function call without its signature; a history from elsewhere gets the documented placeholder.
  const functionParts = parts.filter((part) => part.functionCall);
  if (levelControl && functionParts.length > 0 && !functionParts.some((part) => part.thoughtSignature)) {
    functionParts[0]!.thoughtSignature = DUMMY_THOUGHT_SIGNATURE;
  }
  return parts;
}

function toArgs(json: string, call: ProviderCall, at: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = json.trim() === '' ? {} : JSON.parse(json);
  } catch {
    parsed = undefined;
  }
  if (isPlainObject(parsed)) return parsed;
  call.warn({
    code: 'converted_parameter',
    param: `${at}.tool_calls`,
    message:
      `Gemini takes function-call arguments as a JSON object; "${json.slice(0, 60)}" was sent as { ` +
      `"arguments": … }.`,
  });
  return { arguments: parsed === undefined ? json : parsed };
}

/** A tool result as Gemini's `response` object: the JSON object itself, anything else as `{ output: text }`. */
function toFunctionResponse(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isPlainObject(parsed)) return parsed;
  } catch {
    // plain text
  }
  return { output: text };
}

function toUserPart(part: ChatCompletionContentPart, at: string): Part {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image_url':
      return mediaPart(part.image_url.url, 'image/jpeg', at);
    case 'input_audio':
      return {
        inlineData: {
          mimeType: `audio/${part.input_audio.format === 'mp3' ? 'mp3' : 'wav'}`,
          data: part.input_audio.data,
        },
      };
    case 'file':
      if (part.file.file_data)
        return mediaPart(part.file.file_data, guessMimeType(part.file.filename ?? '') ?? 'application/pdf', at);
      throw new InvalidRequestError(
        `${at}: Gemini cannot read OpenAI file ids; send the file inline as file_data.`,
        at,
      );
    default:
      throw new InvalidRequestError(
        `${at}: Gemini cannot take a "${(part as { type: string }).type}" content part.`,
        at,
      );
  }
}

/** A data: URI becomes inline bytes; an http(s) or gs:// URL a file reference with a guessed MIME type. */
function mediaPart(url: string, fallbackMimeType: string, at: string): Part {
  const data = /^data:([^;,]*)((?:;[^,;]*)*),(.*)$/s.exec(url);
  if (data) {
    const [, mimeType, params, payload] = data as unknown as [string, string, string, string];
    const base64 = params.split(';').includes('base64') ? payload : toBase64(decodeURIComponent(payload));
    return { inlineData: { mimeType: mimeType || fallbackMimeType, data: base64 } };
  }
  if (/^(https?|gs):\/\//i.test(url))
    return { fileData: { mimeType: guessMimeType(url) ?? fallbackMimeType, fileUri: url } };
  throw new InvalidRequestError(`${at}: "${url.slice(0, 40)}…" is neither a data: URI nor an http(s) URL.`, at);
}

const MIME_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  mp3: 'audio/mp3',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  txt: 'text/plain',
};

function guessMimeType(url: string): string | undefined {
  const path = url.split(/[?#]/)[0] ?? '';
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return extension ? MIME_TYPES[extension] : undefined;
}

function textOf(
  content: string | ReadonlyArray<{ type: string; text?: string; refusal?: string }> | null | undefined,
): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? part.refusal ?? '').join('');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

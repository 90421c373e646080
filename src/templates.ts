import { InvalidRequestError } from './errors.ts';
import type { ChatCompletionMessageParam } from './types.ts';

const VARIABLE = /\{\{\s*([A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*\}\}/g;

/**
 * Fills `{{name}}` / `{{a.b.c}}` variables from `input`. Strings are inserted as they are, other values as JSON;
 * nothing is HTML-escaped and nothing is evaluated. A variable missing from `input` is an error that names it.
 */
export function renderTemplate(text: string, input: unknown, where: string): string {
  if (!text.includes('{{')) return text;
  return text.replace(VARIABLE, (_, path: string) => {
    let value: unknown = input;
    for (const key of path.split('.')) {
      // Own properties only: `{{constructor}}` must not reach into the prototype chain.
      value =
        value !== null && typeof value === 'object' && Object.hasOwn(value, key)
          ? (value as Record<string, unknown>)[key]
          : undefined;
    }
    if (value === undefined) {
      throw new InvalidRequestError(
        `${where} uses the variable {{${path}}}, which "input" does not provide.`,
        `input.${path}`,
        'missing_variable',
      );
    }
    if (typeof value === 'string') return value;
    try {
      return JSON.stringify(value);
    } catch (error) {
      throw new InvalidRequestError(
        `input.${path} cannot be written as JSON into ${where}: ${(error as Error).message}.`,
        `input.${path}`,
        'invalid_input',
      );
    }
  });
}

/**
 * Renders every text in the messages (string contents, text parts, image URLs); returns new message objects.
 * `label` prefixes the place named in a missing-variable error (`Deployment "x" messages[0]`).
 */
export function renderMessages(
  messages: ChatCompletionMessageParam[],
  input: unknown,
  label = '',
): ChatCompletionMessageParam[] {
  return messages.map((message, index) => {
    const where = `${label}messages[${index}]`;
    const content = message.content;
    if (typeof content === 'string')
      return { ...message, content: renderTemplate(content, input, where) } as ChatCompletionMessageParam;
    if (!Array.isArray(content)) return message;
    const parts = content.map((part) => {
      if (part.type === 'text') return { ...part, text: renderTemplate(part.text, input, where) };
      if (part.type === 'image_url')
        return { ...part, image_url: { ...part.image_url, url: renderTemplate(part.image_url.url, input, where) } };
      return part;
    });
    return { ...message, content: parts } as ChatCompletionMessageParam;
  });
}

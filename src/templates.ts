import { InvalidRequestError } from './errors.ts';
import { utf8Length } from './internal/bytes.ts';
import type { ChatCompletionMessageParam } from './types.ts';

const VARIABLE = /\{\{\s*([A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*\}\}/g;

/**
 * The default bound on the text templating writes for one request: 8 MiB, twice `serve`'s default body limit. A
 * value referenced many times multiplies (3 MB × 150 references is 450 MB), so the bound is on what is written.
 */
export const DEFAULT_MAX_RENDERED_BYTES = 8 * 1024 * 1024;

export interface RenderOptions {
  /**
   * The most UTF-8 bytes the rendered texts may hold together (default 8 MiB); past it, a 400 `template_too_large`
   * naming the variable. Texts without variables are passed through and do not count.
   */
  maxRenderedBytes?: number | undefined;
}

/** What one rendering may still write: shared by every text of a request's messages. */
interface RenderBudget {
  readonly limit: number;
  used: number;
}

/**
 * Fills `{{name}}` / `{{a.b.c}}` variables from `input`. Strings are inserted as they are, other values as JSON;
 * nothing is HTML-escaped and nothing is evaluated. A variable missing from `input` is an error that names it; so
 * is a result larger than `maxRenderedBytes`.
 */
export function renderTemplate(text: string, input: unknown, where: string, options: RenderOptions = {}): string {
  return renderText(text, input, where, budgetOf(options));
}

/**
 * Renders every text in the messages (string contents, text parts, image URLs); returns new message objects.
 * `label` prefixes the place named in an error (`Deployment "x" messages[0]`). The size bound covers all of them.
 */
export function renderMessages(
  messages: ChatCompletionMessageParam[],
  input: unknown,
  options: RenderOptions & { label?: string } = {},
): ChatCompletionMessageParam[] {
  const budget = budgetOf(options);
  return messages.map((message, index) => {
    const where = `${options.label ?? ''}messages[${index}]`;
    const render = (text: string) => renderText(text, input, where, budget);
    const content = message.content;
    if (typeof content === 'string') return { ...message, content: render(content) } as ChatCompletionMessageParam;
    if (!Array.isArray(content)) return message;
    const parts = content.map((part) => {
      if (part.type === 'text') return { ...part, text: render(part.text) };
      if (part.type === 'image_url')
        return { ...part, image_url: { ...part.image_url, url: render(part.image_url.url) } };
      return part;
    });
    return { ...message, content: parts } as ChatCompletionMessageParam;
  });
}

/**
 * The variables (`name`, `a.b`) the messages' texts use, sorted: every one is required, since rendering fails on a
 * missing one. The texts read are those `renderMessages` renders.
 */
export function templateVariables(messages: ReadonlyArray<ChatCompletionMessageParam>): string[] {
  const found = new Set<string>();
  const scan = (text: string) => {
    for (const match of text.matchAll(VARIABLE)) found.add(match[1]!);
  };
  for (const { content } of messages) {
    if (typeof content === 'string') scan(content);
    else if (Array.isArray(content))
      for (const part of content) {
        if (part.type === 'text') scan(part.text);
        else if (part.type === 'image_url') scan(part.image_url.url);
      }
  }
  return [...found].sort();
}

function budgetOf(options: RenderOptions): RenderBudget {
  return { limit: options.maxRenderedBytes ?? DEFAULT_MAX_RENDERED_BYTES, used: 0 };
}

function renderText(text: string, input: unknown, where: string, budget: RenderBudget): string {
  if (!text.includes('{{')) return text;
  // Counted as it is written, so that the first reference past the bound stops the rendering: each variable is
  // charged with the literal text before it, the rest of the text once the last variable is in.
  let written = 0;
  let last = '';
  const charge = (bytes: number, path: string) => {
    budget.used += bytes;
    if (budget.used > budget.limit) {
      throw new InvalidRequestError(
        `${where} uses the variable {{${path}}}, and rendering it makes the messages larger than ${budget.limit} ` +
          `bytes (maxRenderedBytes). Send a large value once, or raise maxRenderedBytes.`,
        `input.${path}`,
        'template_too_large',
      );
    }
  };
  const rendered = text.replace(VARIABLE, (match: string, path: string, offset: number) => {
    const value = valueText(lookUp(input, path, where), path, where);
    charge(utf8Length(text.slice(written, offset)) + utf8Length(value), path);
    written = offset + match.length;
    last = path;
    return value;
  });
  if (last) charge(utf8Length(text.slice(written)), last);
  return rendered;
}

function lookUp(input: unknown, path: string, where: string): unknown {
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
  return value;
}

function valueText(value: unknown, path: string, where: string): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? 'undefined'; // a function or symbol, in process: written as before
  } catch (error) {
    throw new InvalidRequestError(
      `input.${path} cannot be written as JSON into ${where}: ${(error as Error).message}.`,
      `input.${path}`,
      'invalid_input',
    );
  }
}

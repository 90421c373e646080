import type { CompletionWarning } from '../types.ts';

/**
 * Prompt-caching breakpoints (`cache_control` on messages, content parts and tools) for the providers that take
 * none: they are removed before sending, with one warning per call. See docs/caching.md.
 */

interface Marked {
  cache_control?: unknown;
}

/** Whether any message, content part or tool carries a breakpoint. Allocates nothing. */
function hasCacheControl(messages: readonly object[], tools: readonly object[] | undefined): boolean {
  for (const message of messages) {
    if ((message as Marked).cache_control !== undefined) return true;
    const content = (message as { content?: unknown }).content;
    if (Array.isArray(content) && content.some((part: Marked) => part.cache_control !== undefined)) return true;
  }
  return tools?.some((tool) => (tool as Marked).cache_control !== undefined) ?? false;
}

/**
 * `body` without breakpoints, copied only where one was: for a provider whose API has no such field (most reject
 * unknown fields). `provider` names it in the warning.
 */
export function withoutCacheControl<Body extends { messages: object[]; tools?: object[] | null | undefined }>(
  body: Body,
  provider: string,
  warn: (warning: CompletionWarning) => void,
): Body {
  if (!hasCacheControl(body.messages, body.tools ?? undefined)) return body;
  warn({
    code: 'cache_control_dropped',
    message:
      `${provider} takes no cache_control breakpoints; they were not sent (it may cache repeated prompt prefixes ` +
      'by itself: see docs/caching.md).',
  });
  const messages = body.messages.map((message) => {
    const content = (message as { content?: unknown }).content;
    const unmarked = unmark(message);
    if (!Array.isArray(content) || !content.some((part: Marked) => part.cache_control !== undefined)) return unmarked;
    return { ...unmarked, content: content.map(unmark) };
  });
  return { ...body, messages, ...(body.tools ? { tools: body.tools.map(unmark) } : {}) };
}

function unmark<T extends object>(value: T): T {
  if ((value as Marked).cache_control === undefined) return value;
  const { cache_control: _dropped, ...rest } = value as T & Marked;
  return rest as T;
}

import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { exampleFromSchema } from '../../structured-output/example-from-schema.ts';
import { textOf } from './conversation.ts';

/**
 * A JSON Schema written in the prompt, as instructor's JSON and MD_JSON modes and pydantic-ai's `PromptedOutput` put
 * it, answered with an instance of it: the last JSON object in the system, developer and user messages (the latest
 * first) that reads as a schema (`type`, `properties`, `anyOf`/`oneOf`/`allOf` or `$ref` at its root) and whose
 * message asks for JSON. In a fenced ```json block when the prompt asks for one ("```json" or "json code block", as
 * MD_JSON's last message does) unless `mayFence` is false (JSON mode), else bare.
 */
export function answerToPromptedSchema(
  messages: readonly ChatCompletionMessageParam[],
  mayFence: boolean,
): string | undefined {
  let askedFence = false;
  let schema: Record<string, unknown> | undefined;
  for (let at = messages.length - 1; at >= 0; at--) {
    const message = messages[at]!;
    if (message.role !== 'system' && message.role !== 'developer' && message.role !== 'user') continue;
    const text = textOf(message.content);
    askedFence ||= mayFence && /```json|json code ?block/i.test(text);
    if (schema === undefined && /json/i.test(text)) schema = lastSchemaIn(text);
  }
  if (!schema) return undefined;
  let instance: unknown;
  try {
    instance = exampleFromSchema(schema);
  } catch {
    // A schema the simulator cannot instantiate is only text in a prompt: the answer is words, as without one.
    return undefined;
  }
  const json = JSON.stringify(instance, null, askedFence ? 2 : undefined);
  return askedFence ? `\`\`\`json\n${json}\n\`\`\`` : json;
}

const SCHEMA_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
/** Characters of prompt text looked through for JSON, at most: enough for any schema a prompt holds. */
const SCAN_LIMIT = 1_000_000;

function lastSchemaIn(text: string): Record<string, unknown> | undefined {
  let found: Record<string, unknown> | undefined;
  let scanned = 0;
  for (let from = text.indexOf('{'); from !== -1 && scanned < SCAN_LIMIT; ) {
    const end = closingBrace(text, from);
    scanned += (end === -1 ? text.length : end) - from;
    if (end === -1) {
      from = text.indexOf('{', from + 1);
      continue;
    }
    const value = parsed(text.slice(from, end + 1));
    if (value !== undefined && looksLikeSchema(value)) found = value;
    // Past a JSON object; into a span that is not one, as it may hold one.
    from = text.indexOf('{', value === undefined ? from + 1 : end + 1);
  }
  return found;
}

/** The index of the `}` that closes the `{` at `start` (strings skipped), or -1. */
function closingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let at = start; at < text.length; at++) {
    const char = text[at];
    if (inString) {
      if (char === '\\') at += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth += 1;
    else if (char === '}' && --depth === 0) return at;
  }
  return -1;
}

function parsed(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function looksLikeSchema(value: Record<string, unknown>): boolean {
  const types = [value.type].flat();
  return (
    (value.type !== undefined && types.every((type) => typeof type === 'string' && SCHEMA_TYPES.has(type))) ||
    (typeof value.properties === 'object' && value.properties !== null) ||
    ['anyOf', 'oneOf', 'allOf'].some((key) => Array.isArray(value[key])) ||
    typeof value.$ref === 'string'
  );
}

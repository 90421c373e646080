import { utf8Length } from './bytes.ts';

/**
 * What an inline file (an image, audio or file part, its content a URL, base64 or a `data:` URL) is counted as: a
 * large image's tokens. Only such a part: text is text, whatever it starts with (`data:` too).
 */
const FILE_TOKENS = 1_600;

/**
 * Tokens a text is likely to take without a tokenizer: four ASCII characters a token, and one a token for every
 * other character (CJK, emoji…, where tokenizers give a token or more each), rounded up. An all-ASCII text (the
 * usual case) is counted from its length alone: its UTF-8 bytes, which Node counts natively, are as many as its
 * characters only when every one is ASCII (any other, a lone surrogate too, takes two bytes or more). Only a text
 * with another character is walked.
 */
export function estimateTokens(text: string): number {
  if (utf8Length(text) === text.length) return Math.ceil(text.length / 4);
  let other = 0;
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) other += 1;
  return Math.ceil((text.length - other) / 4) + other;
}

/**
 * The last body estimated, with the values of the fields its estimate was made from. A call asks for its body's
 * estimate several times in a row (each candidate's context fit, the budget's worst cost, a stream's estimated
 * usage). One entry, not a WeakMap: a WeakMap entry per call costs the garbage collector more than it saves.
 */
const last = {
  body: undefined as object | undefined,
  messages: undefined as unknown,
  tools: undefined as unknown,
  functions: undefined as unknown,
  responseFormat: undefined as unknown,
  tokens: 0,
};

/**
 * The prompt's tokens, estimated from every string of its messages, tools and output schema, and a token a field
 * (the wire carries their names); an image, audio or file part counts `FILE_TOKENS`.
 */
export function estimatePromptTokens(body: Readonly<Record<string, unknown>>): number {
  const { messages, tools, functions, response_format: responseFormat } = body;
  if (
    last.body === body &&
    last.messages === messages &&
    last.tools === tools &&
    last.functions === functions &&
    last.responseFormat === responseFormat
  )
    return last.tokens;
  const tokens = tokensOf(messages, 0) + tokensOf(tools, 0) + tokensOf(functions, 0) + tokensOf(responseFormat, 0);
  Object.assign(last, { body, messages, tools, functions, responseFormat, tokens });
  return tokens;
}

function tokensOf(value: unknown, depth: number): number {
  if (typeof value === 'string') return estimateTokens(value);
  if (typeof value === 'number' || typeof value === 'boolean') return 1;
  let tokens = 0;
  if (Array.isArray(value)) {
    for (const item of value) tokens += tokensOf(item, depth + 1);
  } else if (typeof value === 'object' && value !== null && depth < 64) {
    const part = value as Record<string, unknown>;
    if (part.type === 'image_url' || part.type === 'input_audio' || part.type === 'file') return FILE_TOKENS;
    for (const item of Object.values(part)) tokens += 1 + tokensOf(item, depth + 1);
  }
  return tokens;
}

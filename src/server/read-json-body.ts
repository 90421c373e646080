import type { ServerRequest } from './exchange.ts';
import { HttpError } from './responses.ts';

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/**
 * Objects and arrays nested deeper than this are refused before the body is parsed: validators and converters
 * recurse (zod overflowed the stack at 2,000), and a JSON Schema is already held to 64 levels of its own.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * The request body parsed as JSON: 413 past `maxBytes` (see `ServerRequest.body`), 400 when empty, not JSON, or
 * nested past `MAX_JSON_DEPTH`. Every route and MCP tool that takes JSON reads it here.
 */
export async function readJsonBody(request: ServerRequest, maxBytes: number): Promise<unknown> {
  const bytes = await request.body(maxBytes);
  const depth = nestingPast(bytes, MAX_JSON_DEPTH);
  if (depth !== undefined) {
    const field = outerFieldAt(bytes, depth);
    throw new HttpError(
      400,
      `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep` +
        `${field ? ` in "${field}"` : ''} (at byte ${depth}); the limit is ${MAX_JSON_DEPTH}.`,
      { code: 'json_too_deep', param: field ?? null },
    );
  }
  // A view, not Buffer.from(bytes): that would copy the whole body once more.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (text.trim() === '')
      throw new HttpError(400, 'The request body is empty: send a JSON object.', { code: 'invalid_json' });
    throw new HttpError(400, `The request body is not valid JSON: ${(error as Error).message}.`, {
      code: 'invalid_json',
    });
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/**
 * Where the body's `{`/`[` nesting first goes past `limit` (a byte offset), or `undefined`: one pass, no recursion,
 * strings skipped with `indexOf` (the bulk of a large body is message text). Bytes of UTF-8 sequences are all
 * ≥ 0x80, so reading bytes finds the same brackets and quotes as reading characters. Not a validator: the parse
 * that follows refuses what is not JSON.
 */
export function nestingPast(bytes: Uint8Array, limit: number): number | undefined {
  let depth = 0;
  for (let at = 0; at < bytes.length; at++) {
    const byte = bytes[at]!;
    if (byte === QUOTE) {
      at = closingQuote(bytes, at);
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > limit) return at;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return undefined;
}

/**
 * The outermost field that holds byte `offset`: the top-level key (`"response_format"`), or `[i]` for an item of a
 * top-level array (a JSON-RPC batch). Only on the error path: the body is scanned once more, up to `offset`.
 */
export function outerFieldAt(bytes: Uint8Array, offset: number): string | undefined {
  let depth = 0;
  let inArray = false;
  let item = 0;
  let keyNext = false;
  let field: string | undefined;
  for (let at = 0; at < offset; at++) {
    const byte = bytes[at]!;
    if (byte === QUOTE) {
      const end = closingQuote(bytes, at);
      if (keyNext) field = new TextDecoder().decode(bytes.subarray(at + 1, end));
      keyNext = false;
      at = end;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth === 1) {
        inArray = byte === OPEN_BRACKET;
        keyNext = !inArray;
        if (inArray) field = '[0]';
      }
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth -= 1;
    } else if (byte === COMMA && depth === 1) {
      if (inArray) field = `[${++item}]`;
      else keyNext = true;
    }
  }
  return field;
}

/** The offset of the quote that ends the string opened at `open` (the end of the body when it never ends). */
function closingQuote(bytes: Uint8Array, open: number): number {
  let at = open;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at === -1) return bytes.length;
    // Escaped when an odd number of backslashes precede it.
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
}

/** The 413 for a body over the limit: thrown on a declared `Content-Length` before reading, or mid-upload. */
export function bodyTooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `The request body is larger than ${maxBytes} bytes.`, { code: 'request_too_large' });
}

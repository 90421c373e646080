/**
 * Characters a terminal, a log viewer or a page may act on instead of showing: C0 and C1 control characters (escape
 * sequences start with them) and the bidirectional formatting characters that reorder what follows them (U+061C,
 * U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Those of them `JSON.stringify` does not escape (C0 it does; its own line breaks must stay). */
const UNSAFE_AFTER_STRINGIFY = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The rule, worded for error messages. */
export const UNSAFE_CHARACTERS_RULE =
  'control characters (U+0000–U+001F, U+007F–U+009F) or bidirectional formatting characters (U+061C, U+200E, ' +
  'U+200F, U+202A–U+202E, U+2066–U+2069)';

export function hasUnsafeCharacters(text: string): boolean {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(text);
}

/** Each unsafe character written visibly as an escape (`\x1b`, `\u202e`); everything else as it is. */
export function escapeUnsafeCharacters(text: string): string {
  return text.replace(UNSAFE, (character) => {
    const code = character.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * JSON text with the unsafe characters `JSON.stringify` leaves as they are (DEL, C1, bidirectional formatting)
 * written as `\\uXXXX`: the same JSON once parsed. They can only occur inside strings, where the escape is valid.
 */
export function escapeUnsafeInJson(json: string): string {
  return json.replace(
    UNSAFE_AFTER_STRINGIFY,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

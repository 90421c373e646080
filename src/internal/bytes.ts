/**
 * UTF-8 sizes and base64 without assuming Node's `Buffer`: Node.js (and Bun, Deno) keep its native speed, other
 * runtimes (workers, browsers) get the web platform's `TextEncoder`, `btoa` and `atob`.
 */
interface NodeBuffer {
  byteLength(text: string, encoding?: 'utf8'): number;
  from(
    data: string | Uint8Array,
    encoding?: 'utf8' | 'base64' | 'base64url',
  ): Uint8Array & {
    toString(encoding: 'utf8' | 'base64' | 'base64url'): string;
  };
}

const NodeBuffer = (globalThis as { Buffer?: NodeBuffer }).Buffer;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The length of `text` in UTF-8, in bytes. */
export const utf8Length: (text: string) => number = NodeBuffer
  ? (text) => NodeBuffer.byteLength(text, 'utf8')
  : (text) => encoder.encode(text).length;

/** The bytes as base64 (`url`: the URL-safe alphabet without padding, RFC 4648 §5). */
export function toBase64(bytes: Uint8Array | string, url = false): string {
  const data = typeof bytes === 'string' ? encoder.encode(bytes) : bytes;
  if (NodeBuffer) return NodeBuffer.from(data).toString(url ? 'base64url' : 'base64');
  let binary = '';
  for (let index = 0; index < data.length; index += 0x8000)
    binary += String.fromCharCode(...data.subarray(index, index + 0x8000));
  const plain = btoa(binary);
  return url ? plain.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : plain;
}

/** The UTF-8 text that base64 (either alphabet, padded or not) encodes; throws on characters outside it. */
export function textFromBase64(base64: string): string {
  return decoder.decode(bytesFromBase64(base64));
}

/** The bytes that base64 (either alphabet, padded or not) encodes; throws on characters outside it. */
export function bytesFromBase64(base64: string): Uint8Array {
  if (NodeBuffer) return new Uint8Array(NodeBuffer.from(base64, 'base64url'));
  const plain = base64.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(plain + '='.repeat((4 - (plain.length % 4)) % 4));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

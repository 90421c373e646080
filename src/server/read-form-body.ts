import type { MediaFile } from '../media/media-types.ts';
import type { ServerRequest } from './exchange.ts';
import { HttpError } from './responses.ts';

/** A multipart body's fields: text values as strings, files as bytes (repeated names, `name[]`, as lists). */
export type FormFields = Record<string, string | MediaFile | Array<string | MediaFile>>;

/** More parts than any media request has (an edit of 16 images, a mask, a dozen fields). */
const MAX_FORM_PARTS = 64;

/**
 * A `multipart/form-data` body (an image edit, an audio upload): 413 past `maxBytes`, or when its text fields
 * together pass `maxTextBytes` (the JSON bodies' limit: a prompt is no larger as a form field); 400 when it is not a
 * form, or holds more than 64 parts (counted on the bytes, before they are parsed: a 25 MB body of empty parts must
 * not hold the process). Parsed by the Web standard `Response.formData()`, which every runtime the server runs on has.
 */
export async function readFormBody(
  request: ServerRequest,
  maxBytes: number,
  maxTextBytes: number,
): Promise<FormFields> {
  const type = request.header('content-type') ?? '';
  if (!type.toLowerCase().startsWith('multipart/form-data')) {
    throw new HttpError(400, 'This endpoint takes multipart/form-data (a file upload).', { code: 'invalid_body' });
  }
  const bytes = await request.body(maxBytes);
  if (partsIn(bytes, type) > MAX_FORM_PARTS) {
    throw new HttpError(400, `A multipart body holds at most ${MAX_FORM_PARTS} parts.`, { code: 'invalid_body' });
  }
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData();
  } catch (error) {
    throw new HttpError(400, `The multipart body could not be read: ${(error as Error).message}.`, {
      code: 'invalid_body',
    });
  }
  // Without a prototype: a part named `__proto__` is a field like another.
  const fields: FormFields = Object.create(null);
  let textBytes = 0;
  let parts = 0;
  for (const [raw, value] of form.entries()) {
    // Counted again as parsed: whatever the bytes' count missed.
    if (++parts > MAX_FORM_PARTS) {
      throw new HttpError(400, `A multipart body holds at most ${MAX_FORM_PARTS} parts.`, { code: 'invalid_body' });
    }
    if (typeof value === 'string') textBytes += Buffer.byteLength(value);
    if (textBytes > maxTextBytes) {
      throw new HttpError(413, `The text fields of this body are larger than ${maxTextBytes} bytes.`, {
        code: 'request_too_large',
      });
    }
    const item =
      typeof value === 'string'
        ? value
        : { data: new Uint8Array(await value.arrayBuffer()), name: value.name, type: value.type || undefined };
    const list = raw.endsWith('[]');
    const name = list ? raw.slice(0, -2) : raw;
    const known = fields[name];
    if (known === undefined) fields[name] = list ? [item] : item;
    else if (Array.isArray(known)) known.push(item);
    else fields[name] = [known, item];
  }
  return fields;
}

/** The parts a multipart body holds: its boundary lines, less the closing one (0 without a boundary). */
function partsIn(bytes: Uint8Array, contentType: string): number {
  const boundary = boundaryOf(contentType);
  if (!boundary) return 0;
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const line = Buffer.from(`--${boundary}`);
  let count = 0;
  for (let at = body.indexOf(line); at !== -1 && count <= MAX_FORM_PARTS + 1; at = body.indexOf(line, at + line.length))
    count += 1;
  return count - 1;
}

/** A text field, `undefined` when absent; a 400 when it is a file or repeated. */
export function textField(fields: FormFields, name: string): string | undefined {
  const value = fields[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new HttpError(400, `"${name}" must be a text field.`, { param: name });
  return value;
}

/** A numeric text field. */
export function numberField(fields: FormFields, name: string): number | undefined {
  const value = textField(fields, name);
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!Number.isFinite(number)) throw new HttpError(400, `"${name}" must be a number.`, { param: name });
  return number;
}

/** The files of a field (one or several). */
export function fileFields(fields: FormFields, name: string): MediaFile[] {
  const value = fields[name];
  const all = value === undefined ? [] : Array.isArray(value) ? value : [value];
  if (all.some((item) => typeof item === 'string')) {
    throw new HttpError(400, `"${name}" must be a file.`, { param: name });
  }
  return all as MediaFile[];
}

/** A form field of `metadata`'s bracketed form (`metadata[agent_id]`, as the Python SDK sends a dict): its key. */
const METADATA_FIELD = /^metadata\[([^\]]*)\]$/;

/** Whether a field is `metadata` (JSON) or one of its bracketed entries. */
export function isMetadataField(name: string): boolean {
  return name === 'metadata' || METADATA_FIELD.test(name);
}

/** `metadata` sent as a JSON text field, or as one text field an entry (`metadata[agent_id]=support`). */
export function metadataField(fields: FormFields): Record<string, string> | undefined {
  const text = textField(fields, 'metadata');
  let metadata: Record<string, string> | undefined;
  if (text !== undefined) {
    try {
      metadata = JSON.parse(text) as Record<string, string>;
    } catch {
      throw new HttpError(400, '"metadata" must be a JSON object.', { param: 'metadata' });
    }
  }
  for (const name of Object.keys(fields)) {
    const key = METADATA_FIELD.exec(name)?.[1];
    if (key === undefined) continue;
    metadata = { ...metadata, [key]: textField(fields, name)! };
  }
  return metadata;
}

const HTTP_WHITESPACE = new Set([' ', '\t', '\r', '\n']);

/**
 * The `boundary` parameter as the body's parser reads it (the fetch standard's MIME type parameters): `;`-separated,
 * the name matched whole and without case, the first one kept, a quoted value unescaped. Read any other way, a
 * header like `xboundary=a; boundary=b` would count the parts of the wrong boundary.
 */
function boundaryOf(contentType: string): string | undefined {
  let at = contentType.indexOf(';');
  if (at === -1) return undefined;
  while (at < contentType.length) {
    at += 1;
    while (HTTP_WHITESPACE.has(contentType[at]!)) at += 1;
    let name = '';
    while (at < contentType.length && contentType[at] !== ';' && contentType[at] !== '=') name += contentType[at++];
    if (contentType[at] !== '=') continue;
    at += 1;
    let value = '';
    if (contentType[at] === '"') {
      for (at += 1; at < contentType.length && contentType[at] !== '"'; at += 1) {
        if (contentType[at] === '\\' && at + 1 < contentType.length) at += 1;
        value += contentType[at];
      }
      while (at < contentType.length && contentType[at] !== ';') at += 1;
    } else {
      while (at < contentType.length && contentType[at] !== ';') value += contentType[at++];
      value = value.replace(/[ \t\r\n]+$/, '');
    }
    if (name.toLowerCase() === 'boundary' && value !== '') return value;
  }
  return undefined;
}

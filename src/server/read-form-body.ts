import type { MediaFile } from '../media/media-types.ts';
import type { ServerRequest } from './exchange.ts';
import { HttpError } from './responses.ts';

/** A multipart body's fields: text values as strings, files as bytes (repeated names, `name[]`, as lists). */
export type FormFields = Record<string, string | MediaFile | Array<string | MediaFile>>;

/**
 * A `multipart/form-data` body (an image edit, an audio upload): 413 past `maxBytes`, 400 when it is not a form.
 * Parsed by the Web standard `Response.formData()`, which every runtime the server runs on has.
 */
export async function readFormBody(request: ServerRequest, maxBytes: number): Promise<FormFields> {
  const type = request.header('content-type') ?? '';
  if (!type.toLowerCase().startsWith('multipart/form-data')) {
    throw new HttpError(400, 'This endpoint takes multipart/form-data (a file upload).', { code: 'invalid_body' });
  }
  const bytes = await request.body(maxBytes);
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData();
  } catch (error) {
    throw new HttpError(400, `The multipart body could not be read: ${(error as Error).message}.`, {
      code: 'invalid_body',
    });
  }
  const fields: FormFields = {};
  for (const [raw, value] of form.entries()) {
    const item =
      typeof value === 'string'
        ? value
        : { data: new Uint8Array(await value.arrayBuffer()), name: value.name, type: value.type || undefined };
    const list = raw.endsWith('[]');
    const name = list ? raw.slice(0, -2) : raw;
    const known = fields[name];
    if (known === undefined) fields[name] = list ? [item] : item;
    else fields[name] = [...(Array.isArray(known) ? known : [known]), item];
  }
  return fields;
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

/** `metadata` sent as a JSON text field. */
export function metadataField(fields: FormFields): Record<string, string> | undefined {
  const text = textField(fields, 'metadata');
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as Record<string, string>;
  } catch {
    throw new HttpError(400, '"metadata" must be a JSON object.', { param: 'metadata' });
  }
}

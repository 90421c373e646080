import { InvalidRequestError } from '../errors.ts';
import type { JsonSchema } from './schema-engine.ts';

/** A `$ref` that does not resolve inside the schema: a 400 naming where it is written, from either engine. */
export function missingRefError(schema: JsonSchema, missing: string, param: string): InvalidRequestError {
  const at = `${param}${pathOfRef(schema, missing) ?? ''}.$ref`;
  return new InvalidRequestError(
    `${at} is "${missing}", which is not in the schema: only references inside the schema itself ` +
      `resolve (no remote or file references). Put the referenced schema under $defs and point at it there.`,
    at,
    'invalid_schema',
  );
}

export function invalidSchemaError(reason: string, param: string): InvalidRequestError {
  return new InvalidRequestError(`The JSON Schema is invalid: ${reason}.`, param, 'invalid_schema');
}

/** Where in the schema a `$ref` that did not resolve is written (engines report the resolved URI only). */
function pathOfRef(schema: JsonSchema, missing: string): string | undefined {
  const stack: Array<[unknown, string]> = [[schema, '']];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && (missing === ref || missing.endsWith(ref))) return path;
    for (const [key, child] of Object.entries(node))
      stack.push([child, Array.isArray(node) ? `${path}[${key}]` : `${path}.${key}`]);
  }
  return undefined;
}

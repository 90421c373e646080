import { InvalidRequestError } from '../errors.ts';
import { type SchemaFacts, schemaFacts } from './schema-facts.ts';

/**
 * Caps on the JSON Schemas a request carries (`response_format`, tool parameters, a deployment's output schema).
 * Compiling a validator takes time that grows faster than the schema's depth (about 20 s at 2,500 levels), all of
 * it blocking the event loop, so one request could stall every other. Real schemas are far below these caps
 * (OpenAI's structured outputs allow 10 levels of nesting and 5,000 properties).
 */
export const SCHEMA_LIMITS = {
  /** Nesting of JSON objects and arrays inside one schema (the schema object itself is level 1). */
  maxDepth: 64,
  /** JSON values (objects, arrays, strings, numbers, booleans, nulls) in one schema. */
  maxNodes: 5_000,
} as const;

/**
 * Throws a 400 (`schema_too_deep` or `schema_too_large`, naming `param`) when a schema passes a limit, and
 * (`invalid_schema`) when it uses `$async`: ajv compiles that to a validator returning a promise, which a
 * synchronous check would take as "valid" while its rejection crashed the process. A schema already measured (the
 * same object, or the same content: schema-facts.ts) is not walked again. `param` may be a function, called only
 * when there is an error to name it in.
 */
export function assertSchemaLimits(schema: unknown, param: string | (() => string)): void {
  if (typeof schema !== 'object' || schema === null) return;
  const facts = factsOf(schema);
  if (facts?.withinLimits) return;
  const size = measure(schema);
  if (size.asyncAt !== undefined || size.depth > SCHEMA_LIMITS.maxDepth || size.nodes > SCHEMA_LIMITS.maxNodes)
    throw limitError(size, typeof param === 'string' ? param : param());
  if (facts) facts.withinLimits = true;
}

/** The schema's facts; none when it cannot be serialised (a cycle, or nesting too deep for the stack). */
function factsOf(schema: object): SchemaFacts | undefined {
  try {
    return schemaFacts(schema);
  } catch {
    return undefined;
  }
}

function limitError(size: { depth: number; nodes: number; asyncAt?: string }, param: string): InvalidRequestError {
  if (size.asyncAt !== undefined) {
    const at = `${param}${size.asyncAt}.$async`;
    return new InvalidRequestError(
      `${at}: asynchronous schemas ("$async": true) are not supported; answers are validated synchronously. Remove ` +
        `the keyword.`,
      at,
      'invalid_schema',
    );
  }
  if (size.depth > SCHEMA_LIMITS.maxDepth) {
    return new InvalidRequestError(
      `${param} is nested more than ${SCHEMA_LIMITS.maxDepth} levels deep (objects and arrays); the limit is ` +
        `${SCHEMA_LIMITS.maxDepth}. Flatten it, or use $defs and $ref for repeated parts.`,
      param,
      'schema_too_deep',
    );
  }
  return new InvalidRequestError(
    `${param} has more than ${SCHEMA_LIMITS.maxNodes} JSON values; the limit is ${SCHEMA_LIMITS.maxNodes}. Split ` +
      `the request or simplify the schema.`,
    param,
    'schema_too_large',
  );
}

/**
 * Depth and node count without recursion (a value 100,000 levels deep must not overflow the stack), stopping as
 * soon as either limit is passed, so the cost is bounded by the limits rather than by the body; and the path of
 * the first `"$async": true`, if any.
 */
function measure(root: object): { depth: number; nodes: number; asyncAt?: string } {
  const stack: Array<[value: unknown, depth: number, path: string]> = [[root, 1, '']];
  let nodes = 0;
  let depth = 0;
  while (stack.length > 0) {
    const [value, level, path] = stack.pop()!;
    nodes += 1;
    if (value === null || typeof value !== 'object') continue;
    depth = Math.max(depth, level);
    if (depth > SCHEMA_LIMITS.maxDepth || nodes > SCHEMA_LIMITS.maxNodes) break;
    if (Array.isArray(value)) {
      value.forEach((child, index) => {
        stack.push([child, level + 1, `${path}[${index}]`]);
      });
      continue;
    }
    if ((value as { $async?: unknown }).$async === true) return { depth, nodes, asyncAt: path };
    for (const [key, child] of Object.entries(value)) stack.push([child, level + 1, `${path}.${key}`]);
  }
  return { depth, nodes: nodes + stack.length };
}

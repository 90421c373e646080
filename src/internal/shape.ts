/**
 * A small structural checker for JSON that arrives from outside (provider answers): each `Shape` says what a value
 * must look like and returns the first problem as text (`choices[0].message must be an object, got null`), or
 * `undefined` when the value fits. Object shapes check the keys they name and ignore the rest, so fields a provider
 * adds later pass. Written by hand rather than with a schema library: it runs on every answer and every stream
 * event, and costs about a microsecond there.
 */
export type Shape = (value: unknown, path: string) => string | undefined;

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}

function expected(what: string, value: unknown, path: string): string {
  return `${path || 'the answer'} must be ${what}, got ${kindOf(value)}`;
}

export const string: Shape = (value, path) => (typeof value === 'string' ? undefined : expected('a string', value, path));
export const number: Shape = (value, path) => (typeof value === 'number' && Number.isFinite(value) ? undefined : expected('a number', value, path));
export const boolean: Shape = (value, path) => (typeof value === 'boolean' ? undefined : expected('a boolean', value, path));
/** Anything at all, including nothing: for fields that are passed on untouched and never read. */
export const any: Shape = () => undefined;

/** A JSON object (not an array, not null). */
export const plainObject: Shape = (value, path) => (isPlainObject(value) ? undefined : expected('an object', value, path));

/** `undefined` (the key is missing) or the shape. */
export function optional(shape: Shape): Shape {
  return (value, path) => (value === undefined ? undefined : shape(value, path));
}

/** `undefined`, `null` or the shape: the common "may be absent" of JSON APIs. */
export function nullish(shape: Shape): Shape {
  return (value, path) => (value === undefined || value === null ? undefined : shape(value, path));
}

export function literal(...allowed: ReadonlyArray<string | number | boolean | null>): Shape {
  return (value, path) => (allowed.includes(value as string) ? undefined : expected(`one of ${allowed.map((item) => JSON.stringify(item)).join(', ')}`, value, path));
}

export function array(item: Shape, options: { min?: number } = {}): Shape {
  return (value, path) => {
    if (!Array.isArray(value)) return expected('an array', value, path);
    if (options.min !== undefined && value.length < options.min) return `${path || 'the answer'} must have at least ${options.min} item${options.min === 1 ? '' : 's'}, got none`;
    for (let index = 0; index < value.length; index++) {
      const problem = item(value[index], `${path}[${index}]`);
      if (problem) return problem;
    }
    return undefined;
  };
}

/** An object whose named keys fit their shapes; other keys are not looked at. */
export function object(fields: Record<string, Shape>): Shape {
  const entries = Object.entries(fields);
  return (value, path) => {
    if (!isPlainObject(value)) return expected('an object', value, path);
    for (const [key, shape] of entries) {
      const problem = shape(value[key], path ? `${path}.${key}` : key);
      if (problem) return problem;
    }
    return undefined;
  };
}

/** Chooses the shape by the value's `type` field; types not listed fit `otherwise` (default: any object). */
export function byType(shapes: Record<string, Shape>, otherwise: Shape = plainObject): Shape {
  return (value, path) => {
    if (!isPlainObject(value)) return expected('an object', value, path);
    const type = value.type;
    const shape = typeof type === 'string' && Object.hasOwn(shapes, type) ? shapes[type]! : otherwise;
    return shape(value, path);
  };
}

/** Both shapes. */
export function both(first: Shape, second: Shape): Shape {
  return (value, path) => first(value, path) ?? second(value, path);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A small structural checker for JSON that arrives from outside (provider answers): each `Shape` says what a value
 * must look like, and `checkShape` returns the first problem as text (`choices[0].message must be an object, got
 * null`), or `undefined` when the value fits. Object shapes check the keys they name and ignore the rest, so fields
 * a provider adds later pass. Written by hand rather than with a schema library: it runs on every answer and every
 * stream event, and allocates nothing unless a value does not fit (the path is put together on the way out).
 */
export type Shape = (value: unknown) => Mismatch | undefined;

/** Where a value does not fit (relative to the shape that was checked) and what was expected. */
interface Mismatch {
  path: string;
  problem: string;
}

/** The first mismatch of `value` against `shape`, as a sentence; `undefined` when it fits. */
export function checkShape(shape: Shape, value: unknown): string | undefined {
  const mismatch = shape(value);
  if (!mismatch) return undefined;
  return `${mismatch.path.replace(/^\./, '') || 'the answer'} ${mismatch.problem}`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}

function expected(what: string, value: unknown): Mismatch {
  return { path: '', problem: `must be ${what}, got ${kindOf(value)}` };
}

export const string: Shape = (value) => (typeof value === 'string' ? undefined : expected('a string', value));
export const number: Shape = (value) =>
  typeof value === 'number' && Number.isFinite(value) ? undefined : expected('a number', value);
/** A token count: a number ≥ 0 (a negative or infinite count is a provider's bug, never billed as a refund). */
export const tokenCount: Shape = (value) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? undefined : expected('a count ≥ 0', value);
export const boolean: Shape = (value) => (typeof value === 'boolean' ? undefined : expected('a boolean', value));

/** A JSON object (not an array, not null). */
export const plainObject: Shape = (value) => (isPlainObject(value) ? undefined : expected('an object', value));

/** `undefined` (the key is missing) or the shape. */
export function optional(shape: Shape): Shape {
  return (value) => (value === undefined ? undefined : shape(value));
}

/** `undefined`, `null` or the shape: the common "may be absent" of JSON APIs. */
export function nullish(shape: Shape): Shape {
  return (value) => (value === undefined || value === null ? undefined : shape(value));
}

export function literal(...allowed: ReadonlyArray<string | number | boolean | null>): Shape {
  return (value) =>
    allowed.includes(value as string)
      ? undefined
      : expected(`one of ${allowed.map((item) => JSON.stringify(item)).join(', ')}`, value);
}

export function array(item: Shape, options: { min?: number } = {}): Shape {
  return (value) => {
    if (!Array.isArray(value)) return expected('an array', value);
    if (options.min !== undefined && value.length < options.min) {
      return { path: '', problem: `must have at least ${options.min} item${options.min === 1 ? '' : 's'}, got none` };
    }
    for (let index = 0; index < value.length; index++) {
      const mismatch = item(value[index]);
      if (mismatch) return within(`[${index}]`, mismatch);
    }
    return undefined;
  };
}

/** An object whose named keys fit their shapes; other keys are not looked at. */
export function object(fields: Record<string, Shape>): Shape {
  const entries = Object.entries(fields);
  return (value) => {
    if (!isPlainObject(value)) return expected('an object', value);
    for (const [key, shape] of entries) {
      const mismatch = shape(value[key]);
      if (mismatch) return within(`.${key}`, mismatch);
    }
    return undefined;
  };
}

/** Chooses the shape by the value's `type` field; types not listed fit `otherwise` (default: any object). */
export function byType(shapes: Record<string, Shape>, otherwise: Shape = plainObject): Shape {
  return (value) => {
    if (!isPlainObject(value)) return expected('an object', value);
    const type = value.type;
    const shape = typeof type === 'string' && Object.hasOwn(shapes, type) ? shapes[type]! : otherwise;
    return shape(value);
  };
}

/** Both shapes. */
export function both(first: Shape, second: Shape): Shape {
  return (value) => first(value) ?? second(value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function within(step: string, mismatch: Mismatch): Mismatch {
  mismatch.path = step + mismatch.path;
  return mismatch;
}

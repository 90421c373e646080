/**
 * A deep copy that follows `JSON.parse(JSON.stringify(value))` exactly, without building the string: `toJSON` is
 * called, `undefined`, functions and symbols are dropped from objects and become `null` in arrays, non-finite
 * numbers become `null`, only own enumerable string keys are kept, boxed primitives are unboxed. Strings are shared
 * (they are immutable), which is where the round trip spent its time on long conversations. Like `JSON.stringify`,
 * it throws on a BigInt or a cycle (and a `RangeError` when nested too deep for the stack).
 */
export function jsonCopy(value: unknown): unknown {
  const copied = copyValue(value, '', []);
  return copied === undefined ? null : copied;
}

function copyValue(input: unknown, key: string, ancestors: object[]): unknown {
  let value = input;
  // JSON asks objects, functions and BigInts (a `BigInt.prototype.toJSON` polyfill) for their toJSON.
  const kind = typeof value;
  if (
    ((kind === 'object' && value !== null) || kind === 'function' || kind === 'bigint') &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // -0 is written as 0.
      return Number.isFinite(value) ? value + 0 : null;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (value instanceof Number || value instanceof String || value instanceof Boolean)
    return copyValue(value.valueOf(), key, ancestors);
  if (value instanceof BigInt) throw new TypeError('Do not know how to serialize a BigInt');
  if (ancestors.includes(value)) throw new TypeError('Converting circular structure to JSON');
  ancestors.push(value);
  let result: unknown;
  if (Array.isArray(value)) {
    // A loop, not map(): holes in sparse arrays become null as JSON writes them.
    const array: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++)
      array[index] = copyValue(value[index], String(index), ancestors) ?? null;
    result = array;
  } else {
    const object: Record<string, unknown> = {};
    for (const name of Object.keys(value)) {
      const item = copyValue((value as Record<string, unknown>)[name], name, ancestors);
      if (item === undefined) continue;
      // An own "__proto__" key is data in JSON; plain assignment would set the prototype instead.
      if (name === '__proto__')
        Object.defineProperty(object, name, { value: item, enumerable: true, writable: true, configurable: true });
      else object[name] = item;
    }
    result = object;
  }
  ancestors.pop();
  return result;
}

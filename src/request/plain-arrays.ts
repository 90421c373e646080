import { fail } from './parameter-checks.ts';

/**
 * In process, an array a caller passes may carry an own `constructor` key, which JSON never makes. Every Array method
 * that builds a new array (`filter`, `map`, `slice`) asks it for its species, and one that is not a constructor
 * throws a TypeError wherever the request is converted. Refused up front as a 400 naming the top-level parameter.
 * The walk is iterative (values nested 50,000 deep are refused elsewhere, not by the stack) and visits each object
 * once (a cycle ends it).
 */
export function refuseArraysWithConstructor(request: Record<string, unknown>): void {
  const seen = new WeakSet<object>();
  const pending: object[] = [];
  for (const param of Object.keys(request)) {
    // `input` is data for the templates, read only while rendering (and only as far as the size bound allows).
    if (param === 'input') continue;
    // Only objects are walked (a request is mostly strings): no pair is made per value, this runs on every call.
    for (let value: unknown = request[param]; value !== undefined; value = pending.pop()) {
      if (typeof value !== 'object' || value === null || seen.has(value)) continue;
      seen.add(value);
      if (Array.isArray(value)) {
        if (Object.hasOwn(value, 'constructor'))
          fail(`"${param}" holds an array with a "constructor" key of its own: send plain arrays.`, param);
        for (const item of value) if (typeof item === 'object' && item !== null) pending.push(item);
      } else {
        for (const key in value) {
          if (!Object.hasOwn(value, key)) continue;
          const item = (value as Record<string, unknown>)[key];
          if (typeof item === 'object' && item !== null) pending.push(item);
        }
      }
    }
  }
}

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
  // `input` is data for the templates, read only while rendering (and only as far as the size bound allows).
  const pending: Array<[value: unknown, param: string]> = Object.keys(request)
    .filter((key) => key !== 'input')
    .map((key) => [request[key], key]);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, param] = next;
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      if (Object.hasOwn(value, 'constructor'))
        fail(`"${param}" holds an array with a "constructor" key of its own: send plain arrays.`, param);
      for (const item of value) pending.push([item, param]);
    } else for (const key of Object.keys(value)) pending.push([(value as Record<string, unknown>)[key], param]);
  }
}

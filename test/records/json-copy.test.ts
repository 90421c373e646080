import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonCopy } from '../../src/internal/json-copy.ts';

/** What the copy must equal: the JSON round trip it replaces (or the error that round trip throws). */
function roundTrip(value: unknown): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(JSON.stringify(value) ?? 'null') as unknown };
  } catch (error) {
    return { error: (error as Error).constructor.name };
  }
}

function copied(value: unknown): { value: unknown } | { error: string } {
  try {
    return { value: jsonCopy(value) };
  } catch (error) {
    return { error: (error as Error).constructor.name };
  }
}

describe('jsonCopy', () => {
  it(
    'equals the JSON round trip for any value fast-check makes (BigInts, undefined, -0, NaN, sparse arrays, ' +
      '__proto__ keys…)',
    () => {
      fc.assert(
        fc.property(
          fc.anything({
            withBigInt: true,
            withBoxedValues: true,
            withDate: true,
            withMap: true,
            withSet: true,
            withNullPrototype: true,
            withSparseArray: true,
            withTypedArray: true,
          }),
          (value) => {
            expect(copied(value)).toStrictEqual(roundTrip(value));
          },
        ),
        { numRuns: 2000 },
      );
    },
  );

  it('follows toJSON (with its key), drops functions and symbols, and throws on cycles', () => {
    const when = new Date('2026-11-22T12:00:00Z');
    const keyed = { toJSON: (key: string) => `key:${key}` };
    const value = {
      when,
      keyed,
      list: [keyed, () => 1, Symbol('s'), undefined],
      fn: () => 1,
      sym: Symbol('t'),
      nested: { n: Number.POSITIVE_INFINITY },
    };
    expect(jsonCopy(value)).toStrictEqual(JSON.parse(JSON.stringify(value)));
    expect(jsonCopy(value)).toMatchObject({
      when: '2026-11-22T12:00:00.000Z',
      keyed: 'key:keyed',
      list: ['key:0', null, null, null],
      nested: { n: null },
    });
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = { back: cycle };
    expect(() => jsonCopy(cycle)).toThrow(TypeError);
    // The same object twice (not a cycle) is copied twice, as JSON would.
    const shared = { x: 1 };
    expect(jsonCopy({ a: shared, b: [shared] })).toStrictEqual({ a: { x: 1 }, b: [{ x: 1 }] });
  });

  it('keeps an own "__proto__" key as data, never as the prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = jsonCopy(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
  });

  it(
    'asks BigInts for toJSON like JSON does (a BigInt.prototype.toJSON polyfill), and refuses boxed ones without ' +
      'it',
    () => {
      expect(copied({ a: 1n })).toStrictEqual(roundTrip({ a: 1n }));
      expect(copied({ a: Object(1n) })).toStrictEqual(roundTrip({ a: Object(1n) }));
      const prototype = BigInt.prototype as unknown as { toJSON?: () => string };
      prototype.toJSON = function toJSON(this: bigint) {
        return this.toString();
      };
      try {
        const value = { a: 1n, list: [2n], boxed: Object(3n) };
        expect(copied(value)).toStrictEqual(roundTrip(value));
        expect(jsonCopy(value)).toStrictEqual({ a: '1', list: ['2'], boxed: '3' });
      } finally {
        delete prototype.toJSON;
      }
    },
  );
});

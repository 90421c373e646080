import fc from 'fast-check';
import { expect, it } from 'vitest';
import { anyCodePoint } from './code-points.ts';

// The fuzzers' strings lose nothing by `anyCodePoint` standing in for fast-check's `binary` unit.
it('anyCodePoint makes lone surrogates, astral and control code points, and edge strings such as __proto__', () => {
  const units = fc.sample(anyCodePoint, { numRuns: 20_000, seed: 1 });
  expect(units.every((unit) => [...unit].length === 1)).toBe(true);
  expect(units.some((unit) => /^[\ud800-\udfff]$/.test(unit))).toBe(true);
  expect(units.some((unit) => unit.length === 2)).toBe(true);
  expect(units.some((unit) => unit.charCodeAt(0) < 0x20)).toBe(true);
  const strings = fc.sample(fc.string({ unit: anyCodePoint, maxLength: 40 }), { numRuns: 20_000, seed: 1 });
  expect(strings).toContain('__proto__');
  expect(() => anyCodePoint.canShrinkWithoutContext('ab')).not.toThrow();
  expect(anyCodePoint.canShrinkWithoutContext('ab')).toBe(false);
  expect(anyCodePoint.canShrinkWithoutContext('\u{1f600}')).toBe(true);
});

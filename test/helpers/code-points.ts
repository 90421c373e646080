import fc from 'fast-check';

/**
 * One code point of all 1,114,112, lone surrogates included: fast-check's `binary` string unit, without its cost.
 * fast-check builds that unit as a table of every code point and, on creating a string arbitrary (to learn which
 * edge strings such as `__proto__` it can produce), a reverse map of all of them: ~1.9 s of CPU and ~85 MB that stay
 * in the test worker for the rest of the run (fast-check keeps one unit per kind), and that every full collection of
 * the worker's heap then marks again. This one maps to and from a code point arithmetically, so it can still tell
 * which strings it produces (the edge strings are still generated), and holds nothing.
 */
export const anyCodePoint: fc.Arbitrary<string> = fc.integer({ min: 0, max: 0x10ffff }).map(
  (codePoint) => String.fromCodePoint(codePoint),
  (value) => {
    const codePoint = typeof value === 'string' ? value.codePointAt(0) : undefined;
    if (codePoint === undefined || String.fromCodePoint(codePoint) !== value) throw new Error('not one code point');
    return codePoint;
  },
);

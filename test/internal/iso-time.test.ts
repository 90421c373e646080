import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/internal/iso-time.ts';

describe('isoTime', () => {
  it('writes what toISOString writes, for any time: in one second, across seconds, and at the edges', () => {
    const now = Date.now();
    const times = [
      0,
      1,
      999,
      1000,
      now,
      now + 1,
      now - 1,
      now - (now % 1000),
      now - (now % 1000) + 999,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2024, 2, 1),
      253_402_300_799_999,
      253_402_300_800_000,
      -1,
      -62_198_755_200_000,
      1.5,
      now + 0.25,
    ];
    // Random times, and runs of neighbours (the cache's case), interleaved with jumps (its misses).
    let seed = 20261129;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * 4_102_444_800_000;
    for (let round = 0; round < 2000; round++) {
      const at = Math.floor(random());
      times.push(at, at + 1, at + 7, at + 999, at - 1);
    }
    for (const time of times) expect(isoTime(time), String(time)).toBe(new Date(time).toISOString());
  });

  it('refuses what toISOString refuses', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});

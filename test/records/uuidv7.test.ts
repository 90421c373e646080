import { describe, expect, it } from 'vitest';
import { uuidv7, uuidv7Timestamp } from '../../src/records/index.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7', () => {
  it('has the RFC 9562 layout: version 7, variant 10', () => {
    for (let index = 0; index < 1000; index++) expect(uuidv7()).toMatch(UUID_V7);
  });

  it('carries the timestamp in its first 48 bits', () => {
    const at = Date.UTC(2030, 5, 1, 8, 30, 15, 123);
    expect(uuidv7Timestamp(uuidv7(at))).toBe(at);
    expect(uuidv7Timestamp(uuidv7(0))).toBe(0);
    const now = Date.now();
    expect(Math.abs(uuidv7Timestamp(uuidv7()) - now)).toBeLessThan(1000);
  });

  it('increases strictly when many ids are made in the same millisecond', () => {
    const at = Date.UTC(2031, 0, 1);
    const ids = Array.from({ length: 10_000 }, () => uuidv7(at));
    expect(new Set(ids).size).toBe(ids.length);
    for (let index = 1; index < ids.length; index++) expect(ids[index]! > ids[index - 1]!).toBe(true);
  });

  it('sorts by time across milliseconds, and an older timestamp sorts before newer ids', () => {
    const base = Date.UTC(2032, 0, 1);
    const later = uuidv7(base + 5);
    const earlier = uuidv7(base);
    expect(earlier < later).toBe(true);
    expect(uuidv7(base + 6) > later).toBe(true);
  });

  it('increases within an earlier millisecond too, after an id for a later one (a clock set back)', () => {
    const base = Date.UTC(2034, 0, 1);
    uuidv7(base + 60_000);
    const ids = Array.from({ length: 1000 }, () => uuidv7(base));
    for (let index = 1; index < ids.length; index++) expect(ids[index]! > ids[index - 1]!).toBe(true);
  });

  it('is random beyond the timestamp', () => {
    const at = Date.UTC(2033, 0, 1);
    const tails = new Set(Array.from({ length: 100 }, () => uuidv7(at).slice(19)));
    expect(tails.size).toBe(100);
  });
});

/**
 * UUIDv7 (RFC 9562 §5.7): 48-bit Unix milliseconds, version 7, 12 bits `rand_a`, variant 10, 62 bits `rand_b`.
 * Ids sort by creation time as plain strings, which is what lets the call store page by `(created_at, id)`.
 */

// Random bytes drawn 4 KiB at a time from web crypto (every runtime has it): one draw per id costs more than all
// the rest of making it.
const POOL_SIZE = 4096;
const pool = new Uint8Array(POOL_SIZE);
let poolOffset = POOL_SIZE;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function randomBytes16(): Uint8Array {
  if (poolOffset + 16 > POOL_SIZE) {
    globalThis.crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  const bytes = pool.slice(poolOffset, poolOffset + 16);
  poolOffset += 16;
  return bytes;
}

let lastRequestedMs = -1;
let lastMs = -1;
let lastCounter = 0;
/** The last earlier millisecond asked for, and its counter: ids of one such millisecond increase too. */
let earlierMs = -1;
let earlierCounter = 0;

/** A new UUIDv7 for `timestampMs` (default now). Ids made by this process for the same or a later time increase. */
export function uuidv7(timestampMs: number = Date.now()): string {
  const bytes = randomBytes16();
  const requested = Math.max(0, Math.floor(timestampMs));
  // rand_a doubles as a counter within one millisecond (RFC 9562 §6.2, method 1), seeded in its lower half so
  // that thousands of ids fit before it overflows; on overflow the id borrows the next millisecond.
  const seed = ((bytes[6]! << 8) | bytes[7]!) & 0x7ff;
  let ms = requested;
  let counter = seed;
  // An older timestamp (a call that started earlier but finished later, or any after the clock was set back) keeps
  // its own time; within it, ids increase as the latest time's do, in a counter of their own.
  if (requested < lastRequestedMs) {
    if (requested === earlierMs && earlierCounter < 0xfff) counter = earlierCounter + 1;
    earlierMs = requested;
    earlierCounter = counter;
  } else {
    if (requested <= lastMs) {
      ms = lastMs;
      counter = lastCounter + 1;
      if (counter > 0xfff) {
        ms += 1;
        counter = seed;
      }
    }
    lastRequestedMs = requested;
    lastMs = ms;
    lastCounter = counter;
  }
  // 48-bit timestamp, big-endian; split because bitwise operators are 32-bit.
  const high = Math.floor(ms / 0x1_0000_0000);
  const low = ms >>> 0;
  bytes[0] = (high >>> 8) & 0xff;
  bytes[1] = high & 0xff;
  bytes[2] = (low >>> 24) & 0xff;
  bytes[3] = (low >>> 16) & 0xff;
  bytes[4] = (low >>> 8) & 0xff;
  bytes[5] = low & 0xff;
  bytes[6] = 0x70 | ((counter >>> 8) & 0x0f);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);

  let id = '';
  for (let index = 0; index < 16; index++) {
    if (index === 4 || index === 6 || index === 8 || index === 10) id += '-';
    id += HEX[bytes[index]!];
  }
  return id;
}

/** The Unix milliseconds a UUIDv7 carries. */
export function uuidv7Timestamp(id: string): number {
  return Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}

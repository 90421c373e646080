import { describe, expect, it } from 'vitest';
import { MemorySpendStore } from '../../src/budgets/memory-spend-store.ts';
import type { SlotCharge, SlotHold } from '../../src/budgets/spend-store.ts';
import { KeyConcurrency } from '../../src/server/key-concurrency.ts';

/**
 * A key's slot in a shared store (Redis, the primary of `serve --workers`) is given back off the request's path. A
 * store that fails that moment (Redis restarting for two seconds) left the slot held until its hold lapsed, 15
 * minutes: a key with `max_in_flight: 1` locked out that long. The release is tried again until it is heard.
 */
class FlakyStore extends MemorySpendStore {
  failures = 0;
  override async settle(id: string, released: readonly SlotHold[], charges: readonly SlotCharge[]): Promise<void> {
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('connection reset');
    }
    await super.settle(id, released, charges);
  }
}

describe("a key's in-flight slot given back while the shared store fails", () => {
  it('is given back once the store answers again, not 15 minutes later', async () => {
    const store = new FlakyStore();
    const concurrency = new KeyConcurrency(1, store);
    const release = await concurrency.acquire('key');
    store.failures = 2;
    release();
    await expect(concurrency.acquire('key')).rejects.toMatchObject({ status: 429 });
    await expect.poll(() => concurrency.current('key'), { timeout: 10_000, interval: 200 }).toBe(0);
    const again = await concurrency.acquire('key');
    again();
  }, 20_000);
});

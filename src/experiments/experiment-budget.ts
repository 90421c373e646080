import { roundUsd } from '../records/compute-cost.ts';
import { type ExperimentHeader, staleBefore } from './experiment.ts';
import type { ExperimentStore } from './experiment-store.ts';

/** The store's sums are read again at most this often before a cell (`confirm` reads them for every cell). */
const REFRESH_MS = 250;

/**
 * An experiment's `budget_usd` as one run sees it: what its cells have spent, what its own calls in flight may still
 * cost (their worst), and what the calls of other runs (another replica's, on the same experiment) hold, read from
 * the store (`held_usd` of their running cells, at most `REFRESH_MS` old). A cell is called only when all that plus
 * its own worst cost fits (`refusal`), and again, once its hold is stored, from the store alone (`confirm`). The
 * store answers from its columns (`spending`), never by reading the experiment's cells.
 */
export class ExperimentBudget {
  spent = 0;
  #held = 0;
  #othersHeld = 0;
  #readAt = Number.NEGATIVE_INFINITY;
  #reading: Promise<void> | undefined;
  readonly #services: { store: ExperimentStore };
  readonly #header: ExperimentHeader;
  /** The cells this run claimed: its own holds are counted here, not read from the store. */
  readonly #own: Set<string>;

  constructor(services: { store: ExperimentStore }, header: ExperimentHeader, own: Set<string>) {
    this.#services = services;
    this.#header = header;
    this.#own = own;
  }

  /** Why cell `id`, whose worst cost is `worst`, may not be called; `undefined` (and it is held) when it may. */
  async refusal(id: string, worst: number): Promise<string | undefined> {
    const limit = this.#header.budget_usd;
    if (limit !== null) {
      await this.#read();
      const committed = this.spent + this.#held + this.#othersHeld;
      if (committed + worst > limit)
        return (
          `Cell ${id} could cost up to $${worst.toFixed(6)}; the experiment has spent $${this.spent.toFixed(6)} ` +
          `(+$${(this.#held + this.#othersHeld).toFixed(6)} running) of its $${limit} budget. Set ` +
          'max_completion_tokens on the version to bound its cost, or raise budget_usd.'
        );
    }
    this.#held += worst;
    return undefined;
  }

  /**
   * After the cell's hold is stored: the budget checked again from the store alone — what was spent and every
   * run's holds, this one's included. Of cells published at once, the last to read sees them all, so together they
   * never pass the budget (each may back off: it is skipped, and runs next time). Why not, or `undefined`.
   */
  async confirm(id: string): Promise<string | undefined> {
    const limit = this.#header.budget_usd;
    if (limit === null) return undefined;
    const { spent_usd, holds } = await this.#services.store.spending(this.#header.id, staleBefore());
    const spent = roundUsd(spent_usd);
    const held = holds.reduce((sum, hold) => sum + hold.held_usd, 0);
    if (spent + held <= limit) return undefined;
    return (
      `Cell ${id}: the experiment has spent $${spent.toFixed(6)} and its calls in flight (on every replica) may cost ` +
      `$${held.toFixed(6)} more, past its $${limit} budget. Set max_completion_tokens on the version to bound its ` +
      'cost, or raise budget_usd.'
    );
  }

  /** The cell's call ended (its cost added to `spent` by the caller): its hold is let go. */
  release(worst: number): void {
    this.#held -= worst;
  }

  /**
   * What the store says was spent, and what other runs' calls in flight may cost. Cells asking while a reading is
   * under way wait for it: a store answering on a later turn (PostgreSQL) must not let them decide on none.
   */
  #read(): Promise<void> {
    if (this.#reading) return this.#reading;
    if (performance.now() - this.#readAt < REFRESH_MS) return Promise.resolve();
    this.#readAt = performance.now();
    this.#reading = this.#readStore().finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  async #readStore(): Promise<void> {
    const { spent_usd, holds } = await this.#services.store.spending(this.#header.id, staleBefore());
    let othersHeld = 0;
    for (const hold of holds) if (!this.#own.has(hold.id)) othersHeld += hold.held_usd;
    // The store is the truth for what every run spent; this run's own answers not yet stored are held still.
    this.spent = Math.max(this.spent, roundUsd(spent_usd));
    this.#othersHeld = othersHeld;
  }
}

import { tenantOf } from '../access/lineage.ts';
import type { ExperimentCaller, Experiments, RunExperimentOptions } from '../experiments/experiments-api.ts';
import { HttpError } from './responses.ts';

/** Background runs one process keeps at once; more are refused with a 429. */
export const MAX_BACKGROUND_RUNS = 16;
/**
 * Background runs one tenant may have under way, whichever of its keys started them (`tenantOf`): a key that mints
 * children cannot take every run of the server through them. A quarter of the server's: four tenants at most fill it.
 */
export const MAX_BACKGROUND_RUNS_PER_TENANT = 4;

/**
 * Experiment runs started by a request and left running after it is answered: never tied to the request (a client
 * going away does not stop them), bounded per process, their errors logged (never an unhandled rejection).
 */
export class BackgroundRuns {
  readonly #runs = new Map<string, Set<Promise<void>>>();
  #count = 0;
  /** Runs under way by tenant (in-process callers under ''): at most as many entries as runs. */
  readonly #perTenant = new Map<string, number>();
  readonly #limit: number;
  readonly #onError: (error: unknown, experimentId: string) => void;

  constructor(onError: (error: unknown, experimentId: string) => void, limit = MAX_BACKGROUND_RUNS) {
    this.#onError = onError;
    this.#limit = limit;
  }

  /**
   * A 429 when the caller's tenant has `MAX_BACKGROUND_RUNS_PER_TENANT` runs under way, or the server `limit`
   * (checked before a create or add that runs, so nothing is half done).
   */
  requireRoom(experimentId?: string, caller?: ExperimentCaller): void {
    const then = experimentId ? `POST /v1/experiments/${experimentId}/run` : 'run again';
    if ((this.#perTenant.get(tenantOfCaller(caller)) ?? 0) >= MAX_BACKGROUND_RUNS_PER_TENANT)
      throw new HttpError(
        429,
        `This API key's tenant (it and the keys minted with it) has ${MAX_BACKGROUND_RUNS_PER_TENANT} experiment ` +
          `runs under way, the most one tenant may: wait for one to end, then ${then}.`,
        { type: 'rate_limit_error', code: 'too_many_experiment_runs' },
      );
    if (this.#count < this.#limit) return;
    throw new HttpError(
      429,
      `Too many experiment runs under way (${this.#limit} per server): wait for one to end, then ${then}.`,
      { type: 'rate_limit_error', code: 'too_many_experiment_runs' },
    );
  }

  /**
   * Starts `experiments.run` without awaiting its end; resolves once it has claimed its cells (so that every replica
   * sees them running when the caller is answered), or has ended. A 429 when `limit` runs are under way.
   */
  start(experiments: Experiments, id: string, options: RunExperimentOptions, caller?: ExperimentCaller): Promise<void> {
    const tenant = tenantOfCaller(caller);
    this.requireRoom(id, caller);
    this.#count++;
    this.#perTenant.set(tenant, (this.#perTenant.get(tenant) ?? 0) + 1);
    let claimed!: () => void;
    const started = new Promise<void>((resolve) => (claimed = resolve));
    const run: Promise<void> = experiments
      .run(id, { ...options, onClaimed: claimed }, caller)
      .then(
        () => undefined,
        (error: unknown) => this.#onError(error, id),
      )
      .finally(() => {
        claimed();
        this.#count--;
        const left = (this.#perTenant.get(tenant) ?? 1) - 1;
        if (left === 0) this.#perTenant.delete(tenant);
        else this.#perTenant.set(tenant, left);
        const set = this.#runs.get(id);
        set?.delete(run);
        if (set?.size === 0) this.#runs.delete(id);
      });
    const set = this.#runs.get(id) ?? new Set();
    set.add(run);
    this.#runs.set(id, set);
    return started;
  }

  /** Settles when every run of `id` started here has ended; `undefined` when none is under way. */
  pending(id: string): Promise<void> | undefined {
    const set = this.#runs.get(id);
    return set ? Promise.all(set).then(() => undefined) : undefined;
  }

  get size(): number {
    return this.#count;
  }
}

/** The tenant whose runs a caller's count among (`tenantOf` its calls' access); '' for in-process callers. */
function tenantOfCaller(caller: ExperimentCaller | undefined): string {
  return tenantOf(caller?.callOptions?.().access) ?? caller?.keyId ?? '';
}

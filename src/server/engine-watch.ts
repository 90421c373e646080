import type { StorageUnavailableError } from '../errors.ts';
import { redactSecrets, redactUrlCredentials } from '../internal/redact.ts';

/** A shared engine of `serve`: `postgres` (keys, records) or `redis` (rate limits, budgets). */
export type EngineState = 'ok' | 'down';

export interface EngineWatchOptions {
  /** Each engine the server uses, and how to ask whether it answers (throws when it does not). */
  probes: Record<string, () => Promise<void>>;
  log: (level: 'warn' | 'info', msg: string, fields: Record<string, unknown>) => void;
  /** At most one line per engine per interval while it is down, with the failures counted since (default 10 s). */
  logIntervalMs?: number;
  /** How long a probe may take, and how long its answer is trusted (default 1 s). */
  probeMs?: number;
  /** Never logged: the passwords of the engines' URLs. */
  secrets?: readonly string[];
}

interface Watched {
  probe: (() => Promise<void>) | undefined;
  down: boolean;
  since: number;
  lastLine: number;
  /** Failures since the last line logged. */
  failures: number;
  timer: NodeJS.Timeout | undefined;
  checked: { at: number; ok: Promise<boolean>; failed: boolean; ms: number } | undefined;
}

/**
 * Watches the engines replicas share, so an outage is loud once, not once per request: the first failure is logged
 * at once, then one line per interval with the count of failures since, then one line when the engine answers again
 * (probed each interval). `states()` answers `GET /v1/health`: each engine `ok` or `down`, probed at most once a
 * probe period.
 */
export class EngineWatch {
  readonly #engines = new Map<string, Watched>();
  readonly #options: EngineWatchOptions;
  readonly #intervalMs: number;
  readonly #probeMs: number;
  #closed = false;

  constructor(options: EngineWatchOptions) {
    this.#options = options;
    this.#intervalMs = options.logIntervalMs ?? 10_000;
    this.#probeMs = options.probeMs ?? 1_000;
    for (const [name, probe] of Object.entries(options.probes)) this.#engines.set(name, watched(probe));
  }

  /** A request failed for want of an engine: counted, and logged within the interval's one line. */
  failed(error: StorageUnavailableError): void {
    const engine = this.#watched(error.component);
    engine.failures += 1;
    this.down(error.component, error.cause ?? error);
  }

  /** The engine is unreachable (a failed request, its client's connection error): logged now if it was up. */
  down(name: string, reason: unknown): void {
    const engine = this.#watched(name);
    if (engine.down || this.#closed) return;
    engine.down = true;
    engine.since = performance.now();
    engine.lastLine = engine.since;
    engine.checked = undefined;
    this.#options.log('warn', `${name} is unavailable: requests that need it are answered 503 storage_unavailable`, {
      component: name,
      error: this.#redact(reason),
      failures: engine.failures,
    });
    engine.failures = 0;
    this.#schedule(name, engine);
  }

  /** The engine answers again (its client reconnected, or a probe passed): one line with the failures left. */
  up(name: string): void {
    const engine = this.#engines.get(name);
    if (!engine?.down) return;
    engine.down = false;
    clearTimeout(engine.timer);
    engine.timer = undefined;
    this.#options.log('info', `${name} is available again`, {
      component: name,
      failures: engine.failures,
      down_s: Math.round((performance.now() - engine.since) / 100) / 10,
    });
    engine.failures = 0;
  }

  /** Each engine's state now, probed (or the answer of a probe less than a probe period old). */
  async states(): Promise<Record<string, EngineState>> {
    const names = [...this.#engines.keys()];
    const answers = await Promise.all(names.map((name) => this.#check(name)));
    return Object.fromEntries(names.map((name, index) => [name, answers[index] ? 'ok' : 'down']));
  }

  /** Each engine's state and the milliseconds its probe took (`/v1/health/ready`). */
  async readiness(): Promise<Record<string, { status: EngineState; latency_ms: number }>> {
    const names = [...this.#engines.keys()];
    const answers = await Promise.all(names.map((name) => this.#check(name)));
    return Object.fromEntries(
      names.map((name, index) => {
        const latency = Math.round((this.#engines.get(name)?.checked?.ms ?? 0) * 10) / 10;
        return [name, { status: answers[index] ? 'ok' : 'down', latency_ms: latency }];
      }),
    );
  }

  /** Stops the interval timers (the server is closing). */
  close(): void {
    this.#closed = true;
    for (const engine of this.#engines.values()) clearTimeout(engine.timer);
  }

  async #check(name: string): Promise<boolean> {
    const engine = this.#watched(name);
    if (!engine.probe) return !engine.down;
    const now = performance.now();
    // A passed probe is trusted for a probe period; a failed one only until the next asks (one probe at a time).
    if (!engine.checked || now - engine.checked.at >= this.#probeMs || engine.checked.failed)
      engine.checked = this.#startProbe(engine.probe);
    const ok = await engine.checked.ok;
    if (ok) this.up(name);
    else this.down(name, 'the health probe got no answer');
    return ok;
  }

  #startProbe(probe: () => Promise<void>): NonNullable<Watched['checked']> {
    const checked = { at: performance.now(), ok: this.#probe(probe), failed: false, ms: 0 };
    void checked.ok.then((ok) => {
      checked.failed = !ok;
      checked.ms = performance.now() - checked.at;
    });
    return checked;
  }

  async #probe(probe: () => Promise<void>): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#probeMs);
    });
    try {
      return await Promise.race([probe().then(() => true), late]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * While down: a probe each probe period (so health and the log see the engine back within about a second), and a
   * line each log interval with the failures counted since the last line, when there were any.
   */
  #schedule(name: string, engine: Watched): void {
    clearTimeout(engine.timer);
    engine.timer = setTimeout(
      async () => {
        const ok = engine.probe ? await this.#check(name) : engine.failures === 0;
        if (ok) return this.up(name);
        if (!engine.down || this.#closed) return;
        if (engine.failures > 0 && performance.now() - engine.lastLine >= this.#intervalMs) {
          this.#options.log('warn', `${name} is still unavailable`, {
            component: name,
            failures: engine.failures,
            down_s: Math.round((performance.now() - engine.since) / 1000),
          });
          engine.failures = 0;
          engine.lastLine = performance.now();
        }
        this.#schedule(name, engine);
      },
      engine.probe ? this.#probeMs : this.#intervalMs,
    );
    engine.timer.unref();
  }

  #watched(name: string): Watched {
    let engine = this.#engines.get(name);
    if (!engine) this.#engines.set(name, (engine = watched(undefined)));
    return engine;
  }

  #redact(reason: unknown): string {
    const text = reason instanceof Error ? reason.message || String((reason as { code?: unknown }).code) : reason;
    return redactUrlCredentials(redactSecrets(String(text), this.#options.secrets ?? []));
  }
}

function watched(probe: (() => Promise<void>) | undefined): Watched {
  return { probe, down: false, since: 0, lastLine: 0, failures: 0, timer: undefined, checked: undefined };
}

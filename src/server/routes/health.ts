import type { Gateway } from '../../gateway.ts';
import { json } from '../responses.ts';
import type { Route } from '../router.ts';

/** Records lost this recently make the server `degraded`: a monitor sees a full disk while it lasts. */
const RECENT_LOSS_MS = 60_000;

export interface HealthOptions {
  version: string;
  /** Providers with credentials (names), or `["mock"]` for the simulator. */
  providers: readonly string[];
  /** Each shared engine's state (`postgres`, `redis`): any `down` makes the server `degraded`. */
  engines?: (() => Promise<Record<string, 'ok' | 'down'>>) | undefined;
  /** Each shared engine's state and probe time, for `GET /v1/health/ready`. */
  readiness?: (() => Promise<Record<string, ComponentReadiness>>) | undefined;
  /** The worker of `serve --workers` answering (its number and process id), said by `GET /v1/health`. */
  worker?: { id: number; pid: number } | undefined;
}

export interface ComponentReadiness {
  status: 'ok' | 'down';
  /** Milliseconds its probe took (0 for providers: configured with credentials, never called). */
  latency_ms: number;
}

/**
 * `GET /v1/health/ready`, no key: readiness for an orchestrator. 503 while PostgreSQL or Redis (when used) does not
 * answer its probe, or no provider has credentials; 200 again by itself once they do.
 *
 * `GET /v1/health`, no key (liveness): whether the server runs, stores what it answers, and reaches the engines it
 * shares with other replicas (`components`, probed at most once a second). Counters and states only (no names, no
 * keys, no URLs): safe to expose to a load balancer. Still 200 when degraded: the process itself works.
 */
export function healthRoutes(gateway: Gateway, options: HealthOptions): Route[] {
  const started = performance.now();
  return [
    {
      method: 'GET',
      path: /^\/v1\/health$/,
      auth: 'none',
      async handle() {
        const records = gateway.recordStats;
        const components = options.engines ? await options.engines() : undefined;
        const degraded =
          (records.last_loss_at !== null && Date.now() - Date.parse(records.last_loss_at) < RECENT_LOSS_MS) ||
          Object.values(components ?? {}).includes('down');
        return json(
          {
            status: degraded ? 'degraded' : 'ok',
            version: options.version,
            uptime_s: Math.round((performance.now() - started) / 1000),
            ...(options.worker !== undefined ? { worker: options.worker } : {}),
            providers: options.providers,
            ...(components ? { components } : {}),
            records,
          },
          200,
          { 'cache-control': 'no-store' },
        );
      },
    },
    {
      method: 'GET',
      path: /^\/v1\/health\/ready$/,
      auth: 'none',
      async handle() {
        const components: Record<string, ComponentReadiness> = {
          ...(options.readiness ? await options.readiness() : {}),
          providers: { status: options.providers.length > 0 ? 'ok' : 'down', latency_ms: 0 },
        };
        const ready = Object.values(components).every((component) => component.status === 'ok');
        return json({ status: ready ? 'ready' : 'not_ready', components }, ready ? 200 : 503, {
          'cache-control': 'no-store',
        });
      },
    },
  ];
}

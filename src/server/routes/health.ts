import type { Gateway } from '../../gateway.ts';
import { json } from '../responses.ts';
import type { Route } from '../router.ts';

/** Records lost this recently make the server `degraded`: a monitor sees a full disk while it lasts. */
const RECENT_LOSS_MS = 60_000;

export interface HealthOptions {
  version: string;
  /** Providers with credentials (names), or `["mock"]` for the simulator. */
  providers: readonly string[];
}

/**
 * `GET /v1/health`, no key: whether the server runs and stores what it answers. Counters only (no names, no keys):
 * safe to expose to a load balancer.
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
        const degraded =
          records.last_loss_at !== null && Date.now() - Date.parse(records.last_loss_at) < RECENT_LOSS_MS;
        return json(
          {
            status: degraded ? 'degraded' : 'ok',
            version: options.version,
            uptime_s: Math.round((performance.now() - started) / 1000),
            providers: options.providers,
            records,
          },
          200,
          { 'cache-control': 'no-store' },
        );
      },
    },
  ];
}

import type { Redis } from 'ioredis';
import { urlCredentials } from '../../internal/redact.ts';
import { connectRedis } from '../connect-redis.ts';
import { EngineWatch } from '../engine-watch.ts';
import type { ServeOptions } from '../start-server.ts';
import { DEFAULT_START_WAIT_MS } from '../wait-for-engine.ts';
import type { ServerStores } from './open-stores.ts';
import type { ServerLog } from './server-log.ts';
import type { Teardown } from './teardown.ts';

/** The engines replicas of `serve` share, and the watch over them. */
export interface ServerEngines {
  /** Rate limits, budgets and the response cache's Redis (`redis`), counted there for every replica. */
  redis: Redis | undefined;
  /** PostgreSQL and Redis watched: an outage is a 503 naming the engine, logged once per 10 s, shown by health. */
  watch: EngineWatch;
}

/**
 * Connects Redis (`redis`), waiting for it up to `redisWaitMs` at the start, and watches it beside the stores'
 * PostgreSQL (`database`): `watch.states()` probes each for the health routes.
 */
export async function openEngines(
  options: ServeOptions,
  stores: ServerStores,
  log: ServerLog,
  teardown: Teardown,
): Promise<ServerEngines> {
  let redis: Redis | undefined;
  const say = (level: 'info' | 'warn', msg: string, fields: Record<string, unknown>) => log[level](msg, fields);
  const watch = new EngineWatch({
    probes: {
      ...(stores.postgres ? { postgres: () => stores.postgres!.ping() } : {}),
      ...(options.redis ? { redis: async () => void (await redis!.ping()) } : {}),
    },
    log: say,
    secrets: [...urlCredentials(options.database), ...urlCredentials(options.redis)],
  });
  if (options.redis) {
    const start = { waitMs: options.redisWaitMs ?? DEFAULT_START_WAIT_MS, log: say };
    const connected = await connectRedis(options.redis, start, {
      down: (reason) => watch.down('redis', reason),
      up: () => watch.up('redis'),
    });
    // Asked to quit (its commands answered first); dropped when it cannot answer.
    redis = teardown.add('redis', connected, (client) => client.quit().catch(() => client.disconnect()));
  }
  // Added after Redis, so closed before it: the watch does not log the connection's own closing as an outage. Until
  // Redis connected, nothing called it (no timer to stop).
  return { redis, watch: teardown.add('engine watch', watch, (watching) => watching.close()) };
}

import { redactedUrl } from '../internal/redacted-url.ts';
import { keySlotsOf } from '../providers/key-slots.ts';
import { builtInRegistry } from '../providers/registry.ts';
import { DEFAULT_MAX_CONCURRENT_PER_KEY } from './key-concurrency.ts';
import type { ServeOptions } from './start-server.ts';

/**
 * The startup log's `configuration` line: the stores in use (URLs with their passwords redacted), the limits, the
 * budgets, the CORS origins in force and the providers with credentials (`callable`, without the simulator), each
 * with its number of keys, so an operator reads what the server enforces, not what they meant to set.
 */
export function startupSummary(
  options: ServeOptions,
  dbPath: string,
  callable: readonly string[],
): Record<string, unknown> {
  const rules = options.gateway?.budgets?.rules ?? [];
  const perMinute = rules.find((rule) => rule.scope === 'key' && rule.window === 'minute' && rule.tokens !== undefined);
  return {
    stores: {
      keys: options.database ? redactedUrl(options.database) : dbPath,
      records: options.database ? redactedUrl(options.database) : dbPath,
      deployments: redactedUrl(options.deployments ?? options.database ?? dbPath),
      counters: options.redis ? redactedUrl(options.redis) : 'memory',
      response_cache: options.cache?.store ?? 'memory (calls that ask)',
    },
    limits: {
      max_concurrent_per_key: options.maxConcurrentPerKey ?? DEFAULT_MAX_CONCURRENT_PER_KEY,
      requests_per_minute_per_key: options.requestsPerMinutePerKey ?? null,
      tokens_per_minute_per_key: perMinute?.tokens ?? null,
      rate_limit_on_store_error: options.rateLimitOnStoreError ?? 'open',
    },
    budgets: {
      per_trace_usd: options.gateway?.budgets?.perTrace ?? null,
      rules,
      on_store_error: options.gateway?.budgets?.onStoreError ?? 'closed',
    },
    cors_origins: options.corsOrigins ?? [],
    // Keys and deployments may be stricter, call by call; the gateway's mode is the floor.
    guardrails: {
      sensitive_data: options.gateway?.sensitiveData ?? 'off',
      custom: (options.gateway?.guardrails ?? []).map((guardrail) => guardrail.name),
    },
    providers: Object.fromEntries(callable.map((id) => [id, { keys: keyCount(options, id) }])),
  };
}

/** How many keys a provider has: `keys`, a comma-separated `<PREFIX>_API_KEY`, else its one key. Never the keys. */
function keyCount(options: ServeOptions, id: string): number {
  const configured = options.gateway?.providers?.[id] ?? {};
  const prefix = (configured.definition ?? builtInRegistry.get(id))?.envPrefix;
  const env = options.gateway?.env ?? process.env;
  return keySlotsOf(id, configured, prefix === undefined ? undefined : env[`${prefix}_API_KEY`]).length;
}

import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { BudgetRule } from '../budgets/budget-ledger.ts';
import { BUDGET_SCOPES, BUDGET_WINDOWS } from '../budgets/budget-slots.ts';
import { parseBudget } from '../budgets/parse-budget.ts';
import type { ProviderKey } from '../providers/provider.ts';
import { builtInRegistry } from '../providers/registry.ts';
import type { McpUpstreamSettings } from '../server/mcp-gateway/upstream-settings.ts';
import { availableCores } from './available-cores.ts';
import { mcpServersOf, mcpServersSchema } from './config-mcp-servers.ts';
import { isSecretText, type Secret, secretSchema as secret, warnIfReadableWithSecrets } from './config-secrets.ts';

/**
 * `switchyard serve --config <file>`: the file (YAML, or JSON for `.json`) checked against this schema, every
 * unknown key or wrong type refused by its path (`providers.openai.keys[1].weight: expected a number`). Imported only
 * when `--config` is given, so that zod is not loaded otherwise.
 */

const positiveInteger = z.number().int().positive();

const keySchema = z.strictObject({
  api_key: secret,
  weight: z.number().positive().optional(),
  label: z.string().min(1).optional(),
  base_url: z.string().min(1).optional(),
});

const providerSchema = z.strictObject({
  api_key: secret.optional(),
  base_url: z.string().min(1).optional(),
  keys: z.array(keySchema).min(1).optional(),
  /** Sent with every request; often a credential (a proxy's token), so a secret like the keys. */
  headers: z.record(z.string().min(1), secret).optional(),
  timeout_ms: positiveInteger.optional(),
});

const budgetSchema = z.union([
  z.string(),
  z.strictObject({
    scope: z.enum(BUDGET_SCOPES),
    usd: z.number().positive().optional(),
    tokens: positiveInteger.optional(),
    window: z.enum(BUDGET_WINDOWS).default('lifetime'),
  }),
]);

const onStoreError = z.enum(['open', 'closed']);

export const configFileSchema = z.strictObject({
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65535).optional(),
  data: z.string().min(1).optional(),
  deployments: z.string().min(1).optional(),
  mock: z.boolean().optional(),
  workers: z.union([positiveInteger.max(256), z.literal('auto')]).optional(),
  database: secret.optional(),
  redis: secret.optional(),
  metrics: z.boolean().optional(),
  max_body_bytes: positiveInteger.optional(),
  max_upload_bytes: positiveInteger.optional(),
  max_rendered_bytes: positiveInteger.optional(),
  max_concurrent_per_key: positiveInteger.optional(),
  rate_limit: positiveInteger.optional(),
  tokens_per_minute: positiveInteger.optional(),
  rate_limit_on_store_error: onStoreError.optional(),
  budgets_on_store_error: onStoreError.optional(),
  budgets: z.array(budgetSchema).optional(),
  cors_origins: z.array(z.string().min(1)).optional(),
  allowed_hosts: z.array(z.string().min(1)).optional(),
  allowed_origins: z.array(z.string().min(1)).optional(),
  /** A catalog file (relative to this file) or the rows themselves, as `switchyard catalog` takes them. */
  catalog: z.union([z.string().min(1), z.array(z.record(z.string(), z.unknown()))]).optional(),
  fallbacks: z.array(z.string().min(1)).optional(),
  sensitive_data: z.enum(['off', 'mask', 'block']).optional(),
  timeout_ms: positiveInteger.optional(),
  cache: z.enum(['memory', 'sqlite', 'redis', 'off']).optional(),
  cache_ttl: positiveInteger.optional(),
  providers: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/), providerSchema).optional(),
  mcp_servers: mcpServersSchema.optional(),
});

type ConfigFile = z.infer<typeof configFileSchema>;

/** The file's settings, named as `serve`'s options are, with secrets read and budgets parsed. */
export interface ServeFileSettings {
  host?: string;
  port?: number;
  data?: string;
  deployments?: string;
  mock?: boolean;
  /** Processes serving on one port (`auto` read as the cores available). */
  workers?: number;
  database?: string;
  redis?: string;
  metrics?: boolean;
  maxBodyBytes?: number;
  maxUploadBytes?: number;
  maxRenderedBytes?: number;
  maxConcurrentPerKey?: number;
  rateLimit?: number;
  tokensPerMinute?: number;
  rateLimitOnStoreError?: 'open' | 'closed';
  budgetsOnStoreError?: 'open' | 'closed';
  budget?: BudgetRule[];
  corsOrigin?: string[];
  allowedHost?: string[];
  allowedOrigin?: string[];
  /** A path (absolute) or rows. */
  catalog?: string | Record<string, unknown>[];
  fallbacks?: string[];
  sensitiveData?: 'off' | 'mask' | 'block';
  timeoutMs?: number;
  cache?: 'memory' | 'sqlite' | 'redis' | 'off';
  cacheTtl?: number;
  providers?: Record<string, ProviderFileSettings>;
  mcpServer?: McpUpstreamSettings[];
}

interface ProviderFileSettings {
  apiKey?: string;
  baseURL?: string;
  keys?: ProviderKey[];
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** Reads and checks the file; every problem is one line naming its path in the file. */
export function loadConfigFile(path: string, env: NodeJS.ProcessEnv = process.env): ServeFileSettings {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`--config ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? error}.`);
  }
  let raw: unknown;
  try {
    raw = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new Error(`--config ${path} does not parse: ${(error as Error).message.split('\n')[0]}`);
  }
  const parsed = configFileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const lines = parsed.error.issues.flatMap((issue) => describeIssue(issue));
    throw new Error(`--config ${path} is refused:\n${lines.map((line) => `  ${line}`).join('\n')}`);
  }
  const literalSecrets: string[] = [];
  const settings = settingsOf(parsed.data, dirname(resolve(path)), env, literalSecrets);
  warnIfReadableWithSecrets(path, literalSecrets);
  return settings;
}

function describeIssue(issue: z.core.$ZodIssue): string[] {
  const at = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((key) => `${formatPath([...issue.path, key])}: unknown key`);
  if (issue.code === 'invalid_type') {
    const expected = issue.expected === 'object' || issue.expected === 'array' ? `an ${issue.expected}` : '';
    return [`${at || '(the file)'}: expected ${expected || `a ${issue.expected}`}`];
  }
  return [`${at || '(the file)'}: ${issue.message}`];
}

function formatPath(path: PropertyKey[]): string {
  let text = '';
  for (const part of path)
    text += typeof part === 'number' ? `[${part}]` : text === '' ? String(part) : `.${String(part)}`;
  return text;
}

function settingsOf(file: ConfigFile, dir: string, env: NodeJS.ProcessEnv, literals: string[]): ServeFileSettings {
  const read = (value: Secret, path: string): string => {
    if (typeof value === 'string') {
      if (isSecretText(path, value)) literals.push(path);
      return value;
    }
    const found = env[value.env];
    if (!found) throw new Error(`--config: ${path} names the environment variable ${value.env}, which is not set.`);
    return found;
  };
  const providers: Record<string, ProviderFileSettings> = {};
  for (const [id, provider] of Object.entries(file.providers ?? {})) {
    // A misspelt id would be read by no provider, and its key never used: said, not ignored.
    if (!builtInRegistry.get(id))
      throw new Error(`--config: providers.${id}: no provider has this id (${[...builtInProviderIds()].join(', ')}).`);
    providers[id] = {
      ...(provider.api_key !== undefined ? { apiKey: read(provider.api_key, `providers.${id}.api_key`) } : {}),
      ...(provider.base_url !== undefined ? { baseURL: provider.base_url } : {}),
      ...(provider.headers !== undefined
        ? {
            headers: Object.fromEntries(
              Object.entries(provider.headers).map(([name, value]) => [
                name,
                read(value, `providers.${id}.headers.${name}`),
              ]),
            ),
          }
        : {}),
      ...(provider.timeout_ms !== undefined ? { timeoutMs: provider.timeout_ms } : {}),
      ...(provider.keys !== undefined
        ? {
            keys: provider.keys.map((key, n) => ({
              apiKey: read(key.api_key, `providers.${id}.keys[${n}].api_key`),
              ...(key.weight !== undefined ? { weight: key.weight } : {}),
              ...(key.label !== undefined ? { label: key.label } : {}),
              ...(key.base_url !== undefined ? { baseURL: key.base_url } : {}),
            })),
          }
        : {}),
    };
  }
  const settings: { [K in keyof ServeFileSettings]: ServeFileSettings[K] | undefined } = {
    host: file.host,
    port: file.port,
    data: file.data,
    deployments: file.deployments,
    mock: file.mock,
    workers: file.workers === 'auto' ? availableCores() : file.workers,
    database: file.database === undefined ? undefined : read(file.database, 'database'),
    redis: file.redis === undefined ? undefined : read(file.redis, 'redis'),
    metrics: file.metrics,
    maxBodyBytes: file.max_body_bytes,
    maxUploadBytes: file.max_upload_bytes,
    maxRenderedBytes: file.max_rendered_bytes,
    maxConcurrentPerKey: file.max_concurrent_per_key,
    rateLimit: file.rate_limit,
    tokensPerMinute: file.tokens_per_minute,
    rateLimitOnStoreError: file.rate_limit_on_store_error,
    budgetsOnStoreError: file.budgets_on_store_error,
    budget: file.budgets?.map((budget, n) => budgetRule(budget, `budgets[${n}]`)),
    corsOrigin: file.cors_origins,
    allowedHost: file.allowed_hosts,
    allowedOrigin: file.allowed_origins,
    catalog: typeof file.catalog === 'string' ? resolve(dir, file.catalog) : file.catalog,
    fallbacks: file.fallbacks,
    sensitiveData: file.sensitive_data,
    timeoutMs: file.timeout_ms,
    cache: file.cache,
    cacheTtl: file.cache_ttl,
    providers: file.providers ? providers : undefined,
    mcpServer: file.mcp_servers ? mcpServersOf(file.mcp_servers, dir, read) : undefined,
  };
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

function budgetRule(budget: z.infer<typeof budgetSchema>, path: string): BudgetRule {
  if (typeof budget === 'string') {
    try {
      return parseBudget(budget);
    } catch (error) {
      throw new Error(`--config: ${path}: ${(error as Error).message}`);
    }
  }
  const { scope, usd, tokens, window } = budget;
  if ((usd === undefined) === (tokens === undefined))
    throw new Error(`--config: ${path}: give usd or tokens, one of them.`);
  return usd !== undefined ? { scope, usd, window } : { scope, tokens: tokens!, window };
}

/**
 * The one merge of `serve`'s settings: the file < the environment < the flags. A flag typed on the command line wins
 * (`sourceOf` is commander's `getOptionValueSource`); `SWITCHYARD_DATABASE_URL` / `SWITCHYARD_REDIS_URL` win over the
 * file's `database` / `redis`. Settings no flag has (providers, fallbacks, `timeout_ms`) come from the file alone.
 */
export function mergeServeSettings<T extends object>(
  options: T,
  file: ServeFileSettings,
  sourceOf: (key: string) => string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): T & ServeFileSettings {
  const merged: Record<string, unknown> = { ...(options as Record<string, unknown>) };
  const given = (key: string) => sourceOf(key) === 'cli' || sourceOf(key) === 'env';
  for (const [key, value] of Object.entries(file)) {
    if (given(key)) continue;
    if (key === 'database' && (given('databaseUrlFile') || env.SWITCHYARD_DATABASE_URL)) continue;
    if (key === 'redis' && (given('redisUrlFile') || env.SWITCHYARD_REDIS_URL)) continue;
    merged[key] = value;
  }
  return merged as T & ServeFileSettings;
}

function builtInProviderIds(): string[] {
  return [...builtInRegistry.definitions].map((definition) => definition.id);
}

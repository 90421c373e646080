import cluster from 'node:cluster';
import { type Command, InvalidArgumentError, Option } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import type { BudgetRule } from '../budgets/budget-ledger.ts';
import { parseBudget } from '../budgets/parse-budget.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { CatalogExtension } from '../catalog/extend-catalog.ts';
import type { ClusterWorker } from '../server/cluster/worker-role.ts';
import type { McpUpstreamSettings } from '../server/mcp-gateway/upstream-settings.ts';
import type { ServeCacheStore } from '../server/open-response-cache.ts';
import type { ServeOptions } from '../server/start-server.ts';
import type { ServeFileSettings } from './config-file.ts';
import {
  type ConnectionUrlOptions,
  databaseOption,
  databaseUrlFileOption,
  databaseUrlOf,
  redisOption,
  redisUrlFileOption,
  redisUrlOf,
  warnOfPasswordsInArguments,
} from './connection-urls.ts';
import { parsePort, parsePositiveInteger, parseSeconds } from './format.ts';
import { dataOption, deploymentsOption, requireSqlite } from './options.ts';
import { explainListenError } from './serve-checks.ts';
import { parseWorkers, servePrimary, serveWorker } from './serve-cluster.ts';
import { logMemoryWhenAsked } from './serve-memory-log.ts';
import { allocatorChoiceError, boundServeMemory, logWarningsAsJsonLines, stopOnSignals } from './serve-process.ts';

/** `switchyard serve`: the gateway over HTTP, with its stores, limits and budgets from the options. */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('Serve the OpenAI-compatible API, MCP tools and the workflow page over HTTP')
    .option('--config <file>', 'settings from a YAML (or .json) file; flags and the environment override it')
    .option('--host <host>', 'address to bind (loopback by default)', '127.0.0.1')
    .addOption(
      new Option('--port <port>', 'port to listen on (0: any free port)')
        .env('SWITCHYARD_PORT')
        .argParser(parsePort)
        .default(8787),
    )
    .addOption(dataOption())
    .addOption(deploymentsOption())
    .option('--mock', 'answer every model with the simulator (no provider keys needed)', false)
    .option('--catalog <file>', 'catalog rows to add to the bundled catalog (see `switchyard catalog update`)')
    .addOption(databaseOption())
    .addOption(databaseUrlFileOption())
    .option(
      '--database-wait <seconds>',
      'how long the start retries a --database that does not answer (default 30)',
      parseSeconds,
    )
    .option('--max-body-bytes <bytes>', 'largest request body accepted', parsePositiveInteger, 4 * 1024 * 1024)
    .option(
      '--max-upload-bytes <bytes>',
      'largest upload accepted (an image to edit, audio to transcribe)',
      parsePositiveInteger,
      25 * 1024 * 1024,
    )
    .option(
      '--max-rendered-bytes <bytes>',
      'largest text templating may write into one request (input × {{variables}}); more is a 400',
      parsePositiveInteger,
      8 * 1024 * 1024,
    )
    .option(
      '--max-concurrent-per-key <n>',
      'requests one API key may have in flight; more get 429',
      parsePositiveInteger,
      64,
    )
    .option(
      '--budget <scope:dollars[/window]>',
      'a dollar budget (repeatable): trace:2.5, agent:10/day, workflow:100/month, key:5/day; over it, 402',
      budgetOption,
    )
    .option(
      '--tokens-per-minute <n>',
      'tokens (in and out) one API key may use per minute; over it, 429 until the minute turns',
      parsePositiveInteger,
    )
    .addOption(redisOption())
    .addOption(redisUrlFileOption())
    .option('--redis-wait <seconds>', 'how long the start retries an unreachable --redis (default 30)', parseSeconds)
    .option(
      '--rate-limit <requests-per-minute>',
      'requests one API key may make per minute; more get 429',
      parsePositiveInteger,
    )
    .addOption(
      new Option('--rate-limit-on-store-error <mode>', 'with --redis down: open counts per process, closed answers 503')
        .choices(['open', 'closed'])
        .default('open'),
    )
    .addOption(
      new Option('--budgets-on-store-error <mode>', 'with --redis down: closed answers 503, open lets calls through')
        .choices(['closed', 'open'])
        .default('closed'),
    )
    .option(
      '--cors-origin <origin>',
      'a browser origin allowed to call the API (repeatable); CORS is off without it',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--allowed-host <host:port...>', 'extra Host values accepted on / and /mcp (DNS-rebinding protection)')
    .option('--allowed-origin <origin...>', 'extra Origin values accepted on / and /mcp')
    .addOption(
      new Option(
        '--cache <store>',
        'response cache for deterministic requests: memory, sqlite, redis (--redis), off',
      ).choices(['memory', 'sqlite', 'redis', 'off']),
    )
    .option(
      '--cache-ttl <seconds>',
      'how long the response cache serves an answer (default 3600)',
      parsePositiveInteger,
    )
    .addOption(
      new Option(
        '--sensitive-data <mode>',
        'personal data and secrets in requests: mask, block or off (docs/teams.md)',
      ).choices(['off', 'mask', 'block']),
    )
    .addOption(
      new Option('--workers <n>', 'processes serving on one port, counting as one server (auto: one per core)')
        .env('SWITCHYARD_WORKERS')
        .argParser(parseWorkers)
        .default(1),
    )
    .option('--metrics', 'serve GET /metrics (Prometheus text) to keys with the metrics:read scope', false)
    .option(
      '--mcp-server <name=url>',
      'an upstream MCP server (Streamable HTTP) whose tools /mcp offers as <name>__<tool> (repeatable; headers, ' +
        'credentials and stdio commands: mcp_servers in --config)',
      mcpServerOption,
    )
    .action(async (given: ServeCommandOptions, command: Command) => {
      warnOfPasswordsInArguments(given);
      const options = await withConfigFile(given, command);
      // Checked before anything starts: a URL that is not PostgreSQL's is refused by the name it was given under.
      const database = databaseUrlOf(options);
      const redis = redisUrlOf(options);
      if (database === undefined || options.deployments === undefined) requireSqlite(command);
      const allocatorError = allocatorChoiceError(process.env);
      if (allocatorError) command.error(allocatorError);
      if (options.cache === 'redis' && redis === undefined) command.error('--cache redis needs --redis <url>.');
      if (options.cacheTtl !== undefined && options.cache === undefined) command.error('--cache-ttl needs --cache.');
      boundServeMemory();
      logWarningsAsJsonLines();
      logMemoryWhenAsked();
      const { extendCatalog } = await import('../catalog/extend-catalog.ts');
      // Checked before anything listens: a broken file stops the start with the file, row and field named.
      const catalog =
        options.catalog === undefined
          ? undefined
          : typeof options.catalog === 'string'
            ? extendCatalog(options.catalog)
            : extendCatalog(options.catalog as CatalogExtension, { source: options.config ?? 'config' });
      const settings: ServeOptions = serveOptionsOf(options, { database, redis, catalog });
      // The primary of `--workers` serves nothing itself: it checked the options, and its workers start the server.
      if (cluster.isPrimary && options.workers > 1) return servePrimary(options.workers, options);
      const { startServerAs } = await import('../server/start-server.ts');
      const start = (worker?: ClusterWorker) =>
        startServerAs(settings, worker).catch((error: unknown) =>
          explainListenError(error, options.host, options.port),
        );
      if (cluster.isWorker) return serveWorker(start);
      stopOnSignals(await start());
    });
}

/** The options with `--config`'s file under them (zod loads only then); the flags as given without it. */
async function withConfigFile(options: ServeCommandOptions, command: Command): Promise<ServeSettings> {
  if (options.config === undefined) return options;
  const { loadConfigFile, mergeServeSettings } = await import('./config-file.ts');
  return mergeServeSettings(options, loadConfigFile(options.config), (key) => command.getOptionValueSource(key));
}

/** What `startServer` is given: the options, the URLs checked, the catalog read. */
function serveOptionsOf(
  options: ServeSettings,
  checked: { database: string | undefined; redis: string | undefined; catalog: Catalog | undefined },
): ServeOptions {
  const { database, redis, catalog } = checked;
  return {
    host: options.host,
    port: options.port,
    dataDir: options.data,
    ...(options.deployments !== undefined ? { deployments: options.deployments } : {}),
    mock: options.mock,
    database,
    redis,
    ...(options.redisWait !== undefined ? { redisWaitMs: options.redisWait * 1000 } : {}),
    ...(options.databaseWait !== undefined ? { databaseWaitMs: options.databaseWait * 1000 } : {}),
    maxBodyBytes: options.maxBodyBytes,
    maxUploadBytes: options.maxUploadBytes,
    maxConcurrentPerKey: options.maxConcurrentPerKey,
    ...(options.rateLimit !== undefined ? { requestsPerMinutePerKey: options.rateLimit } : {}),
    rateLimitOnStoreError: options.rateLimitOnStoreError,
    corsOrigins: options.corsOrigin ?? [],
    metrics: options.metrics,
    ...(options.mcpServer ? { mcpServers: options.mcpServer } : {}),
    ...(options.cache ? { cache: { store: options.cache, ttlSeconds: options.cacheTtl } } : {}),
    // One object: --catalog and --budget used to be dropped by the later maxRenderedBytes.
    gateway: {
      maxRenderedBytes: options.maxRenderedBytes,
      ...(catalog ? { catalog } : {}),
      ...(options.providers ? { providers: options.providers } : {}),
      ...(options.fallbacks ? { fallbacks: options.fallbacks } : {}),
      ...(options.sensitiveData ? { sensitiveData: options.sensitiveData } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      // Always: a key's own budgets are counted by the budget stage too, under --budgets-on-store-error.
      budgets: {
        onStoreError: options.budgetsOnStoreError,
        rules: [
          ...(options.budget ?? []),
          ...(options.tokensPerMinute
            ? [{ scope: 'key' as const, tokens: options.tokensPerMinute, window: 'minute' as const }]
            : []),
        ],
      },
    },
    allowedHosts: options.allowedHost ?? [],
    allowedOrigins: options.allowedOrigin ?? [],
    version: packageJson.version,
  };
}

/** `--budget`: a value that is not a budget is one line naming the option and the form it takes. */
function budgetOption(value: string, previous: BudgetRule[] = []): BudgetRule[] {
  try {
    return [...previous, parseBudget(value)];
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** `--mcp-server <name>=<url>`: a Streamable HTTP server without credentials (those go in the config file). */
function mcpServerOption(value: string, previous: McpUpstreamSettings[] = []): McpUpstreamSettings[] {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('expected <name>=<url>, e.g. search=http://127.0.0.1:9000/mcp');
  return [...previous, { name: value.slice(0, at), url: value.slice(at + 1) }];
}

type ServeSettings = ServeCommandOptions & Omit<ServeFileSettings, 'catalog'> & { catalog?: string | object[] };

interface ServeCommandOptions extends ConnectionUrlOptions {
  config?: string;
  host: string;
  port: number;
  data: string;
  deployments?: string;
  mock: boolean;
  workers: number;
  catalog?: string;
  maxBodyBytes: number;
  maxUploadBytes: number;
  maxConcurrentPerKey: number;
  maxRenderedBytes: number;
  allowedHost?: string[];
  allowedOrigin?: string[];
  budget?: BudgetRule[];
  rateLimit?: number;
  redisWait?: number;
  databaseWait?: number;
  rateLimitOnStoreError: 'open' | 'closed';
  budgetsOnStoreError: 'open' | 'closed';
  tokensPerMinute?: number;
  corsOrigin?: string[];
  metrics: boolean;
  cache?: ServeCacheStore;
  cacheTtl?: number;
  mcpServer?: McpUpstreamSettings[];
  sensitiveData?: 'off' | 'mask' | 'block';
}

#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { Command, Option } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import type { BudgetRule } from './budgets/budget-ledger.ts';
import { parseBudget } from './budgets/parse-budget.ts';
import { registerCatalogCommand } from './cli/catalog-command.ts';
import { formatTokens, parsePort, parsePositiveInteger, printJson, printTable } from './cli/format.ts';
import { registerKeysCommand } from './cli/keys-command.ts';
import { logWarningsAsJsonLines, restartWithBoundedYoungGeneration } from './cli/serve-process.ts';
import type { DeploymentStore } from './deployments/store.ts';
import { escapeUnsafeCharacters } from './internal/unsafe-text.ts';
import { databasePath } from './server/open-database.ts';

// Each command imports what it needs when it runs: `keys create` should not pay for loading the gateway and the MCP
// SDK.

const DEFAULT_DATA_DIR = '.switchyard';

const dataOption = () => new Option('--data <dir>', 'data directory holding the SQLite file').default(DEFAULT_DATA_DIR);

const deploymentsOption = () =>
  new Option(
    '--deployments <dir|url>',
    'a deployment directory or a switchyard serve URL (key from SWITCHYARD_API_KEY) instead of the data directory',
  );

const program = new Command('switchyard')
  .description('One OpenAI-shaped API for every language model.')
  .version(packageJson.version)
  .showHelpAfterError();

program
  .command('serve')
  .description('Serve the OpenAI-compatible API, MCP tools and the workflow page over HTTP')
  .option('--host <host>', 'address to bind (loopback by default)', '127.0.0.1')
  .option('--port <port>', 'port to listen on (0: any free port)', parsePort, 8787)
  .addOption(dataOption())
  .addOption(deploymentsOption())
  .option('--mock', 'answer every model with the simulator (no provider keys needed)', false)
  .option('--catalog <file>', 'catalog rows to add to the bundled catalog (see `switchyard catalog update`)')
  .option(
    '--database <url>',
    'postgres://… for call records and API keys, shared by replicas (default SQLite; or SWITCHYARD_DATABASE_URL)',
  )
  .option('--max-body-bytes <bytes>', 'largest request body accepted', parsePositiveInteger, 4 * 1024 * 1024)
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
    (value: string, previous: BudgetRule[] = []) => [...previous, parseBudget(value)],
  )
  .option(
    '--tokens-per-minute <n>',
    'tokens (in and out) one API key may use per minute; over it, 429 until the minute turns',
    parsePositiveInteger,
  )
  .option('--redis <url>', 'redis://… where replicas share rate limits and budgets (or SWITCHYARD_REDIS_URL)')
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
  .action(async (options: ServeCommandOptions) => {
    restartWithBoundedYoungGeneration();
    logWarningsAsJsonLines();
    const { startServer } = await import('./server/start-server.ts');
    const { extendCatalog } = await import('./catalog/extend-catalog.ts');
    // Checked before anything listens: a broken file stops the start with the file, row and field named.
    const catalog = options.catalog === undefined ? undefined : extendCatalog(options.catalog);
    const server = await startServer({
      host: options.host,
      port: options.port,
      dataDir: options.data,
      ...(options.deployments !== undefined ? { deployments: options.deployments } : {}),
      mock: options.mock,
      database: options.database ?? process.env.SWITCHYARD_DATABASE_URL,
      redis: options.redis ?? process.env.SWITCHYARD_REDIS_URL,
      maxBodyBytes: options.maxBodyBytes,
      maxConcurrentPerKey: options.maxConcurrentPerKey,
      ...(options.rateLimit !== undefined ? { requestsPerMinutePerKey: options.rateLimit } : {}),
      rateLimitOnStoreError: options.rateLimitOnStoreError,
      corsOrigins: options.corsOrigin ?? [],
      // One object: --catalog and --budget used to be dropped by the later maxRenderedBytes.
      gateway: {
        maxRenderedBytes: options.maxRenderedBytes,
        ...(catalog ? { catalog } : {}),
        ...(options.budget || options.tokensPerMinute
          ? {
              budgets: {
                onStoreError: options.budgetsOnStoreError,
                rules: [
                  ...(options.budget ?? []),
                  ...(options.tokensPerMinute
                    ? [{ scope: 'key' as const, tokens: options.tokensPerMinute, window: 'minute' as const }]
                    : []),
                ],
              },
            }
          : {}),
      },
      allowedHosts: options.allowedHost ?? [],
      allowedOrigins: options.allowedOrigin ?? [],
      version: packageJson.version,
    });
    let signals = 0;
    const stop = (signal: NodeJS.Signals) => {
      signals += 1;
      // A third signal exits at once, whatever is left.
      if (signals > 2) process.exit(130);
      const now = signals === 2;
      const msg = now ? 'shutting down now' : 'shutting down';
      process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg, signal })}\n`);
      // Once a second signal came, the shutdown it cut short ends with 130 too.
      if (!now)
        return void server.close().then(
          () => process.exit(signals > 1 ? 130 : 0),
          () => process.exit(1),
        );
      // A second one stops waiting for in-flight requests (they are aborted), but still writes every call's record.
      setTimeout(() => process.exit(130), 10_000).unref();
      server.closeNow().then(
        () => process.exit(130),
        () => process.exit(130),
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

registerCatalogCommand(program);

registerKeysCommand(program, dataOption);

program
  .command('models')
  .description('List the model catalog')
  .option('--reasoning', 'only models that support reasoning')
  .option('--json', 'print the OpenAI /v1/models JSON instead of a table')
  .option('--catalog <file>', 'with the rows of this catalog file')
  .action(async (options: { reasoning?: boolean; json?: boolean; catalog?: string }) => {
    const { createGateway } = await import('./gateway.ts');
    const { extendCatalog } = await import('./catalog/extend-catalog.ts');
    const catalog = options.catalog === undefined ? undefined : extendCatalog(options.catalog);
    const list = createGateway({ env: {}, ...(catalog ? { catalog } : {}) }).listModels({
      reasoning: options.reasoning ?? false,
    });
    if (options.json) return printJson(list);
    const rows = list.data.map((model) => [
      model.id,
      model.owned_by,
      model.pricing ? `$${model.pricing.input}` : '?',
      model.pricing ? `$${model.pricing.output}` : '?',
      formatTokens(model.context_window),
      model.release_date,
      model.supports.reasoning ? 'yes' : '',
    ]);
    printTable(['id', 'maker', 'in/1M', 'out/1M', 'context', 'released', 'reasoning'], rows);
  });

const deployments = program.command('deployments').description('List, show and store deployments');
deployments
  .command('list')
  .description('List deployments, newest first')
  .option('--agent-id <agent>', "only this agent's deployments")
  .addOption(dataOption())
  .addOption(deploymentsOption())
  .option('--json', 'print JSON')
  .action(async (options: StoreOptions & { agentId?: string; json?: boolean }) => {
    await withDeployments(options, async (store) => {
      const list = await store.list(options.agentId === undefined ? {} : { agent_id: options.agentId });
      if (options.json) return printJson(list);
      printTable(
        ['id', 'agent', 'environment', 'number', 'model', 'created'],
        list.map((item) => [
          item.id,
          item.agent_id,
          item.environment,
          String(item.number),
          item.version.model,
          item.created_at,
        ]),
      );
    });
  });
deployments
  .command('get')
  .description('Print one deployment as JSON')
  .argument('<id>', 'the deployment id, such as support:production#3')
  .addOption(dataOption())
  .addOption(deploymentsOption())
  .action(async (id: string, options: StoreOptions) => {
    await withDeployments(options, async (store) => {
      const deployment = await store.get(id);
      if (!deployment) throw new Error(`No deployment has the id "${id}".`);
      printJson(deployment);
    });
  });
deployments
  .command('push')
  .description('Store a deployment from a JSON or YAML file (an existing id is never overwritten)')
  .argument('<file>', 'the deployment file')
  .addOption(dataOption())
  .addOption(deploymentsOption())
  .action(async (file: string, options: StoreOptions) => {
    const { validateDeployment } = await import('./deployments/validate-deployment.ts');
    const deployment = validateDeployment(await parseFile(file), file, 400);
    await withDeployments(options, async (store) => {
      if (!store.put) throw new Error('This deployment store is read-only.');
      const existed = (await store.get(deployment.id)) !== undefined;
      await store.put(deployment);
      process.stdout.write(`${existed ? 'Unchanged' : 'Stored'} ${deployment.id}\n`);
    });
  });

interface ServeCommandOptions {
  host: string;
  port: number;
  data: string;
  deployments?: string;
  mock: boolean;
  catalog?: string;
  maxBodyBytes: number;
  maxConcurrentPerKey: number;
  maxRenderedBytes: number;
  allowedHost?: string[];
  allowedOrigin?: string[];
  budget?: BudgetRule[];
  database?: string;
  redis?: string;
  rateLimit?: number;
  rateLimitOnStoreError: 'open' | 'closed';
  budgetsOnStoreError: 'open' | 'closed';
  tokensPerMinute?: number;
  corsOrigin?: string[];
}

interface StoreOptions {
  data: string;
  deployments?: string;
}

async function withDeployments(options: StoreOptions, run: (store: DeploymentStore) => Promise<void>): Promise<void> {
  const { SqliteDeploymentStore } = await import('./deployments/sqlite-store.ts');
  const { createDeploymentStore } = await import('./deployments/create-store.ts');
  const sqlite = options.deployments === undefined ? new SqliteDeploymentStore(databasePath(options.data)) : undefined;
  try {
    await run(sqlite ?? createDeploymentStore(options.deployments!));
  } finally {
    sqlite?.close();
  }
}

async function parseFile(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8');
  if (extname(file).toLowerCase() === '.json') return JSON.parse(text);
  const yaml = await import('yaml');
  return yaml.parse(text);
}

// `switchyard models | head` closes the pipe early; that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`switchyard: ${escapeUnsafeCharacters((error as Error).message)}\n`);
  process.exitCode = 1;
});

import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { Command } from 'commander';
import type { DeploymentStore } from '../deployments/store.ts';
import { databasePath } from '../server/open-database.ts';
import {
  type ConnectionUrlOptions,
  databaseOption,
  databaseUrlFileOption,
  databaseUrlOf,
  warnOfPasswordsInArguments,
} from './connection-urls.ts';
import { printJson, printTable } from './format.ts';
import { dataOption, deploymentsOption, requireSqlite } from './options.ts';

const ofServe = 'of `serve --database`';

/**
 * `switchyard deployments list | get | push`: the deployments of a data directory, PostgreSQL, a directory or a serve
 * URL.
 */
export function registerDeploymentsCommand(program: Command): void {
  const deployments = program.command('deployments').description('List, show and store deployments');
  deployments
    .command('list')
    .description('List deployments, newest first')
    .option('--agent-id <agent>', "only this agent's deployments")
    .addOption(dataOption())
    .addOption(deploymentsOption())
    .addOption(databaseOption(ofServe))
    .addOption(databaseUrlFileOption())
    .option('--json', 'print JSON')
    .action(async (options: StoreOptions & { agentId?: string; json?: boolean }, command: Command) => {
      await withDeployments(options, command, async (store) => {
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
    .addOption(databaseOption(ofServe))
    .addOption(databaseUrlFileOption())
    .action(async (id: string, options: StoreOptions, command: Command) => {
      await withDeployments(options, command, async (store) => {
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
    .addOption(databaseOption(ofServe))
    .addOption(databaseUrlFileOption())
    .action(async (file: string, options: StoreOptions, command: Command) => {
      const { validateDeployment } = await import('../deployments/validate-deployment.ts');
      const deployment = validateDeployment(await parseFile(file), file, 400);
      await withDeployments(options, command, async (store) => {
        if (!store.put) throw new Error('This deployment store is read-only.');
        const existed = (await store.get(deployment.id)) !== undefined;
        await store.put(deployment);
        process.stdout.write(`${existed ? 'Unchanged' : 'Stored'} ${deployment.id}\n`);
      });
    });
}

interface StoreOptions extends Pick<ConnectionUrlOptions, 'database' | 'databaseUrlFile'> {
  data: string;
  deployments?: string;
}

async function withDeployments(
  options: StoreOptions,
  command: Command,
  run: (store: DeploymentStore) => Promise<void>,
): Promise<void> {
  // The same choice as `serve`: `--deployments`, else PostgreSQL (`--database`), else the data directory's SQLite.
  // Both typed is a mistake (one would be ignored); SWITCHYARD_DATABASE_URL set around a --deployments is not.
  if (options.deployments !== undefined && (options.database ?? options.databaseUrlFile) !== undefined)
    throw new Error('Give --deployments or --database (--database-url-file), not both.');
  warnOfPasswordsInArguments(options);
  const database = options.deployments === undefined ? databaseUrlOf(options) : undefined;
  if (options.deployments === undefined && database === undefined) requireSqlite(command);
  const { openDeployments } = await import('../server/open-deployments.ts');
  const opened = await openDeployments({ deployments: options.deployments, database }, databasePath(options.data));
  try {
    await run(opened.store);
  } finally {
    await opened.close();
  }
}

async function parseFile(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8');
  if (extname(file).toLowerCase() === '.json') return JSON.parse(text);
  const yaml = await import('yaml');
  return yaml.parse(text);
}

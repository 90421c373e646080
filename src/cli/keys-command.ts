import { type Command, InvalidArgumentError, Option } from 'commander';
import { hasLimits } from '../access/key-limits.ts';
import { isMcpToolPattern } from '../access/mcp-tools.ts';
import { ADMIN_GRANT, isScope, type KeyGrant, SCOPES, type Scope } from '../access/scopes.ts';
import { ApiKeyStore } from '../server/api-keys.ts';
import type { KeyStore } from '../server/key-store.ts';
import { databasePath } from '../server/open-database.ts';
import {
  type ConnectionUrlOptions,
  databaseOption,
  databaseUrlFileOption,
  databaseUrlOf,
  warnOfPasswordsInArguments,
} from './connection-urls.ts';
import { parsePositiveInteger, printJson, printTable } from './format.ts';
import { type LimitOptions, limitsCell, limitsOf, updateLimits, withLimitOptions } from './key-limit-options.ts';
import { existingDataDir, requireSqlite } from './options.ts';

interface StoreOptions extends ConnectionUrlOptions {
  data: string;
}

interface CreateOptions extends StoreOptions, LimitOptions {
  name?: string;
  scope?: string[];
  agent?: string[];
  model?: string[];
  mcpTool?: string[];
  expiresInDays?: number;
  sensitiveData?: 'off' | 'mask' | 'block';
}

/** Scopes of a key limited to some agents or models when no --scope is given: it is for calling, not administering. */
const LIMITED_SCOPES: readonly Scope[] = ['chat', 'models'];

/** `switchyard keys create | list | update | revoke`: the keys of a data directory, made by whoever runs the server. */
export function registerKeysCommand(program: Command, dataOption: () => Option): void {
  const keys = program
    .command('keys')
    .description('Create, list, limit and revoke API keys of a data directory, or of PostgreSQL with --database');
  const collect = (value: string, previous: string[] = []) => [...previous, value];
  const collectScope = (value: string, previous: string[] = []) => {
    if (!isScope(value)) throw new InvalidArgumentError(`scopes: ${SCOPES.join(', ')}.`);
    return [...previous, value];
  };
  const collectMcpTool = (value: string, previous: string[] = []) => {
    if (!isMcpToolPattern(value)) throw new InvalidArgumentError('expected <server>__<tool>, <server>__* or *.');
    return [...previous, value];
  };
  const create = keys
    .command('create')
    .description(
      'Create an API key and print it (once: only its hash is stored). Without --scope: an admin key, or, with ' +
        `--agent or --model, ${LIMITED_SCOPES.join(' and ')} only`,
    )
    .option('--name <name>', 'a label to recognise the key by')
    .option(
      '--scope <scope>',
      `a scope (repeatable): ${SCOPES.join(', ')}; default all (admin), or ${LIMITED_SCOPES.join(', ')} with ` +
        '--agent or --model',
      collectScope,
    )
    .option('--agent <agent_id>', 'limit the key to this agent (repeatable)', collect)
    .option('--model <model>', 'limit the key to this model (repeatable)', collect)
    .option(
      '--mcp-tool <pattern>',
      'an upstream MCP tool the key may list and call at /mcp (repeatable): <server>__<tool>, <server>__* or *; ' +
        'default every tool for an admin key, none for any other',
      collectMcpTool,
    )
    .option('--expires-in-days <days>', 'the key expires after this many days', parsePositiveInteger)
    .addOption(
      new Option('--sensitive-data <mode>', "personal data and secrets in the key's calls: mask, block or off").choices(
        ['off', 'mask', 'block'],
      ),
    )
    .addOption(dataOption())
    .addOption(databaseOption())
    .addOption(databaseUrlFileOption());
  withLimitOptions(create).action(async (options: CreateOptions, command: Command) => {
    const grant = grantOf(options);
    const limits = limitsOf(options);
    if (hasLimits(limits)) grant.limits = limits;
    await withKeys(options, command, false, async (store) => {
      if (options.name !== undefined) await refuseTakenName(store, options.name);
      const { key, info } = await store.create(options.name, { grant });
      process.stdout.write(`${key}\n`);
      process.stderr.write(
        `Created ${info.id} (${info.prefix}…) with ${grant.scopes.join(', ')}. Store the key now: it cannot be ` +
          'shown again.\n',
      );
    });
  });
  keys
    .command('list')
    .description('List the API keys (prefixes only), with their scopes and the key that minted each')
    .addOption(dataOption())
    .addOption(databaseOption())
    .addOption(databaseUrlFileOption())
    .option('--json', 'print JSON')
    .action(async (options: StoreOptions & { json?: boolean }, command: Command) => {
      await withKeys(options, command, true, async (store) => {
        const list = await store.list();
        if (options.json) return printJson(list);
        printTable(
          ['id', 'prefix', 'name', 'scopes', 'parent', 'limits', 'created', 'expires', 'revoked'],
          list.map((key) => [
            key.id,
            `${key.prefix}…`,
            key.name ?? '',
            key.scopes.length === SCOPES.length ? 'admin' : key.scopes.join(' '),
            key.parent_id ?? '',
            limitsCell(key.limits),
            key.created_at,
            key.expires_at ?? '',
            key.revoked_at ?? '',
          ]),
        );
      });
    });
  const update = keys
    .command('update')
    .description("Change an API key's limits, by id or prefix: the options given replace the key's own")
    .argument('<id|prefix>', 'the key id (key_…) or its prefix (sy-AbCdEfGh)')
    .option('--clear-limits', "drop the key's own limits first (the server's defaults again)")
    .addOption(dataOption())
    .addOption(databaseOption())
    .addOption(databaseUrlFileOption());
  withLimitOptions(update).action(
    async (idOrPrefix: string, options: StoreOptions & LimitOptions & { clearLimits?: boolean }, command: Command) => {
      await withKeys(options, command, true, async (store) => {
        const key = await updateLimits(store, idOrPrefix, options);
        process.stdout.write(
          `Updated ${key.id} (${key.prefix}…): ${limitsCell(key.limits) || "the server's defaults"}\n`,
        );
      });
    },
  );
  keys
    .command('revoke')
    .description('Revoke an API key by id or prefix, and every key minted under it')
    .argument('<id|prefix>', 'the key id (key_…) or its prefix (sy-AbCdEfGh)')
    .addOption(dataOption())
    .addOption(databaseOption())
    .addOption(databaseUrlFileOption())
    .action(async (idOrPrefix: string, options: StoreOptions, command: Command) => {
      await withKeys(options, command, true, async (store) => {
        const key = await store.revoke(idOrPrefix);
        process.stdout.write(`Revoked ${key.id} (${key.prefix}…) at ${key.revoked_at}, and the keys it minted\n`);
      });
    });
}

/** A name is how people tell keys apart in listings: two keys in use may not share one. */
async function refuseTakenName(store: KeyStore, name: string): Promise<void> {
  const taken = (await store.list()).find((key) => key.name === name && key.revoked_at === null);
  if (taken)
    throw new Error(
      `A key named "${name}" exists already (${taken.id}, ${taken.prefix}…): choose another --name, or revoke that ` +
        'key first.',
    );
}

function grantOf(options: CreateOptions): KeyGrant {
  return {
    scopes: options.scope
      ? (options.scope as KeyGrant['scopes'])
      : options.agent || options.model
        ? [...LIMITED_SCOPES]
        : [...ADMIN_GRANT.scopes],
    allowed_agents: options.agent ?? null,
    allowed_models: options.model ?? null,
    mcp_tools: options.mcpTool ?? null,
    ...(options.sensitiveData ? { sensitive_data: options.sensitiveData } : {}),
    expires_at:
      options.expiresInDays === undefined
        ? null
        : new Date(Date.now() + options.expiresInDays * 86_400_000).toISOString(),
  };
}

/**
 * The keys where the server keeps them: PostgreSQL with `--database` (or its file, or `SWITCHYARD_DATABASE_URL`),
 * else the SQLite file of `--data` (which must exist already when the command only reads or revokes).
 */
async function withKeys(
  options: StoreOptions,
  command: Command,
  existing: boolean,
  run: (store: KeyStore) => Promise<void>,
): Promise<void> {
  const database = databaseUrlOf(options);
  warnOfPasswordsInArguments(options);
  let store: KeyStore;
  if (database !== undefined) {
    const { PostgresKeyStore } = await import('../server/postgres-key-store.ts');
    store = new PostgresKeyStore(database);
  } else {
    requireSqlite(command);
    store = new ApiKeyStore(databasePath(existing ? existingDataDir(options.data, 'keys') : options.data));
  }
  try {
    await run(store);
  } finally {
    await store.close();
  }
}

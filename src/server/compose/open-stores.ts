import { createDeploymentStore } from '../../deployments/create-store.ts';
import type { DeploymentStore } from '../../deployments/store.ts';
import { StorageUnavailableError } from '../../errors.ts';
import { claimPrivateFile } from '../../internal/private-file.ts';
import { redactedUrl } from '../../internal/redacted-url.ts';
import type { RecordJournal } from '../../records/record-journal.ts';
import type { RecordSink } from '../../records/sink.ts';
import { PostgresEngine } from '../../storage/postgres-engine.ts';
import type { Stores } from '../../stores/open-stores.ts';
import type { KeyStore } from '../key-store.ts';
import { databasePath } from '../open-database.ts';
import { openRecordJournal } from '../open-record-journal.ts';
import { openServeStores } from '../serve-stores.ts';
import type { ServeOptions } from '../start-server.ts';
import { DEFAULT_START_WAIT_MS, waitForEngine } from '../wait-for-engine.ts';
import { messageOf, type ServerLog } from './server-log.ts';
import type { Teardown } from './teardown.ts';

/** Where `serve` keeps what it must not lose: API keys, deployments and call records. */
export interface ServerStores {
  dataDir: string;
  /** The data directory's SQLite file (used by whatever is not in PostgreSQL). */
  dbPath: string;
  /** Said at the start: the data file was readable by other users (its mode, and how to fix it). */
  dataFileOpen: Record<string, string> | undefined;
  /** Every store of the database (`openStores`): the gateway keeps its annotations and experiments there too. */
  database: Stores;
  keys: KeyStore;
  deployments: DeploymentStore;
  /** What the log calls the deployment store (a URL without its password, `postgres`, `sqlite`). */
  deploymentsShown: string;
  /** Where call records are stored. */
  records: RecordSink;
  /** The write-ahead journal in front of `records` (absent with `recordJournal: false`). */
  journal: RecordJournal | undefined;
  /** How the engine watch asks PostgreSQL whether it answers (with `database`). */
  postgres: { ping(): Promise<void> } | undefined;
}

/**
 * Opens the stores of one database, all by the one factory (`openServeStores`): PostgreSQL with `database` (every
 * table migrated before the server listens: a bad URL stops the start), else the data directory's SQLite file.
 * Deployments are there too unless `deployments` names a directory or URL. Each is added to the teardown as it opens.
 */
export async function openServerStores(
  options: ServeOptions,
  log: ServerLog,
  teardown: Teardown,
): Promise<ServerStores> {
  const dataDir = options.dataDir ?? '.switchyard';
  const dbPath = databasePath(dataDir);
  // Before any store opens it: a new file is this user's alone; one others can read is said, not changed.
  const dataFileOpen = claimPrivateFile(dbPath);
  const { database } = options;
  if (database && !/^postgres(ql)?:\/\//.test(database)) throw new Error('--database takes a postgres:// URL.');
  const stores = teardown.add(
    'stores',
    openServeStores(database ? { engine: 'postgres', connection: database } : { engine: 'sqlite', path: dbPath }),
    (opened) => opened.close(),
  );
  await (database ? waitForDatabase(stores, options, log) : stores.ready());
  const journal =
    options.recordJournal === false
      ? undefined
      : teardown.add('record journal', openRecordJournal(dataDir, stores.calls, log), (opened) => opened.close());
  const engine = stores.engine;
  return {
    dataDir,
    dbPath,
    dataFileOpen,
    database: stores,
    keys: stores.keys,
    deployments: options.deployments !== undefined ? createDeploymentStore(options.deployments) : stores.deployments,
    deploymentsShown:
      options.deployments !== undefined ? redactedUrl(options.deployments) : database ? 'postgres' : 'sqlite',
    records: stores.calls,
    journal,
    postgres: engine instanceof PostgresEngine ? { ping: () => engine.ping() } : undefined,
  };
}

/**
 * Migrates PostgreSQL's tables, waiting for a PostgreSQL that does not answer yet (starting, restarting, failing over)
 * up to `databaseWaitMs`, as for Redis. A failure that is not an outage (a wrong password, a database that does not
 * exist) stops the start at once.
 */
async function waitForDatabase(stores: { ready(): Promise<void> }, options: ServeOptions, log: ServerLog) {
  const start = {
    waitMs: options.databaseWaitMs ?? DEFAULT_START_WAIT_MS,
    log: (level: 'info' | 'warn', msg: string, fields: Record<string, unknown>) => log[level](msg, fields),
  };
  await waitForEngine({ component: 'postgres', name: 'PostgreSQL' }, start, async () => {
    try {
      await stores.ready();
      return { opened: undefined };
    } catch (error) {
      if (!(error instanceof StorageUnavailableError)) throw error;
      // The outage's own words: `postgresError` keeps them in the cause (URL passwords redacted, "PostgreSQL: " first).
      return { cause: messageOf(error.cause ?? error).replace(/^PostgreSQL: /, ''), refused: false };
    }
  });
}

import type { DeploymentStore } from '../../deployments/store.ts';
import { claimPrivateFile } from '../../internal/private-file.ts';
import type { RecordJournal } from '../../records/record-journal.ts';
import type { RecordSink } from '../../records/sink.ts';
import { SqliteSink } from '../../records/sinks/sqlite-sink.ts';
import { ApiKeyStore } from '../api-keys.ts';
import type { KeyStore } from '../key-store.ts';
import { databasePath } from '../open-database.ts';
import { openDeployments } from '../open-deployments.ts';
import { openRecordJournal } from '../open-record-journal.ts';
import type { ServeOptions } from '../start-server.ts';
import type { ServerLog } from './server-log.ts';
import type { Teardown } from './teardown.ts';

/** Where `serve` keeps what it must not lose: API keys, deployments and call records. */
export interface ServerStores {
  dataDir: string;
  /** The data directory's SQLite file (used by whatever is not in PostgreSQL). */
  dbPath: string;
  /** Said at the start: the data file was readable by other users (its mode, and how to fix it). */
  dataFileOpen: Record<string, string> | undefined;
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
 * Opens the stores: in PostgreSQL with `database` (keys and records, their tables migrated before the server listens,
 * deployments too unless `deployments` names a directory or URL), else in the data directory's SQLite file. Each is
 * added to the teardown as it opens.
 */
export async function openStores(options: ServeOptions, log: ServerLog, teardown: Teardown): Promise<ServerStores> {
  const dataDir = options.dataDir ?? '.switchyard';
  const dbPath = databasePath(dataDir);
  // Before any store opens it: a new file is this user's alone; one others can read is said, not changed.
  const dataFileOpen = claimPrivateFile(dbPath);
  const postgres = options.database ? await openPostgresStores(options.database, teardown) : undefined;
  const keys = postgres?.keys ?? teardown.add('keys', new ApiKeyStore(dbPath), (store) => store.close());
  const deployments = teardown.add('deployments', await openDeployments(options, dbPath), (opened) => opened.close());
  const records = postgres?.records ?? teardown.add('records', new SqliteSink(dbPath), (sink) => sink.close());
  const journal =
    options.recordJournal === false
      ? undefined
      : teardown.add('record journal', openRecordJournal(dataDir, records, log), (opened) => opened.close());
  return {
    dataDir,
    dbPath,
    dataFileOpen,
    keys,
    deployments: deployments.store,
    deploymentsShown: deployments.shown,
    records,
    journal,
    postgres: postgres?.records,
  };
}

/** The keys and records in PostgreSQL, each table migrated before the server listens (a bad URL stops the start). */
async function openPostgresStores(url: string, teardown: Teardown) {
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error('--database takes a postgres:// URL.');
  const { PostgresKeyStore } = await import('../postgres-key-store.ts');
  const keys = teardown.add('keys', new PostgresKeyStore(url), (store) => store.close());
  await keys.ready();
  const { PostgresSink } = await import('../../records/sinks/postgres-sink.ts');
  const records = teardown.add('records', new PostgresSink(url), (sink) => sink.close());
  await records.ready();
  return { keys, records };
}

import { StoredAnnotations } from '../annotations/stored-annotations.ts';
import { StoredCache } from '../cache/stored-cache.ts';
import { type DeploymentsPlace, StoredDeployments } from '../deployments/stored-deployments.ts';
import { StoredExperiments } from '../experiments/stored-experiments.ts';
import type { PostgresPoolConfig } from '../internal/postgres-pool.ts';
import { StoredCalls } from '../records/stored-calls.ts';
import type { StorageEngine } from '../storage/engine.ts';
import { MemoryEngine } from '../storage/memory-engine.ts';
import { openDatabase } from './open-database.ts';

/** Where one database is: memory (the in-process default), a SQLite file, or a PostgreSQL database. */
export type StoresSource =
  | {
      engine: 'memory' /** Call records (and annotations) kept; the oldest forgotten past it (default 10,000). */;
      capacity?: number | undefined;
    }
  | { engine: 'sqlite' /** A file (its directory is made) or `:memory:`. */; path: string }
  | { engine: 'postgres' /** A `postgres://…` URL or `pg` pool options. */; connection: string | PostgresPoolConfig };

/** Every store of one database, on one engine (one SQLite connection, one PostgreSQL pool, or one memory). */
export interface Stores {
  readonly engine: StorageEngine;
  /** Call records: a record sink, and `gateway.calls`. */
  readonly calls: StoredCalls;
  readonly annotations: StoredAnnotations;
  readonly experiments: StoredExperiments;
  /** Deployments (`serve`'s table; a gateway's `deployments` when none is given). */
  readonly deployments: StoredDeployments;
  /** A response cache kept in the database (`cache: { store }`; the gateway's default cache stays in memory). */
  readonly cache: StoredCache;
  /** Creates or migrates every table (PostgreSQL's on first use otherwise; SQLite's and memory's when opened). */
  ready(): Promise<void>;
  /** Closes the engine: the connection or pool every store shares. */
  close(): Promise<void>;
}

/**
 * Opens the stores of one database: the one place they are made, whoever needs them (the gateway, `serve`). A
 * `StorageEngine` already open (a `SqliteSink`'s) gives the stores of its database, with `calls` the store given.
 */
export function openStores(source: StoresSource | StorageEngine, calls?: StoredCalls): Stores {
  const engine = 'kind' in source ? source : openEngine(source);
  const stores: Stores = {
    engine,
    calls: calls ?? new StoredCalls(engine),
    annotations: new StoredAnnotations(engine),
    experiments: new StoredExperiments(engine),
    deployments: new StoredDeployments(engine, placeOf(engine)),
    cache: new StoredCache(engine),
    ready: async () => {
      const { calls, annotations, experiments, deployments, cache } = stores;
      await Promise.all([calls, annotations, experiments, deployments, cache].map((store) => store.ready()));
    },
    close: () => engine.close(),
  };
  return stores;
}

/** What the deployment store's errors call the database. */
function placeOf(engine: StorageEngine): DeploymentsPlace {
  const name = { sqlite: 'SQLite', postgres: 'PostgreSQL', memory: 'memory' }[engine.kind];
  // A database is named, never its URL: a password (of any characters) stays out of every message.
  const location = engine.kind === 'sqlite' && engine.path ? engine.path : name;
  return { location, conflict: `in the ${name} deployment store` };
}

function openEngine(source: StoresSource): StorageEngine {
  if (source.engine === 'memory') {
    const capacity = Math.max(1, Math.floor(source.capacity ?? 10_000));
    return new MemoryEngine({ capacity: { calls: capacity, annotations: capacity } });
  }
  return openDatabase(source);
}

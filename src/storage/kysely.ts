import type * as KyselyModule from 'kysely';
import type { Kysely, KyselyPlugin, RootOperationNode, TableNode } from 'kysely';
import { kysely } from './load-kysely.ts';
import { declaredTables, type EngineKind, tableName } from './schema.ts';

export { kysely, loadKysely } from './load-kysely.ts';

/**
 * Kysely builds every query of the stores once, as an operation tree: the SQL engines compile it to their SQL, the
 * memory engine runs the tree itself (`memory-query.ts`). Kysely is only the builder and the compilers here; each
 * engine runs what it compiled (`node:sqlite` synchronously, a `pg` pool, or memory), so nothing of Kysely's driver
 * layer is used. Loaded on first use (load-kysely.ts): the package's import must not pay for it.
 */

// biome-ignore lint/suspicious/noExplicitAny: tables are checked by their declarations, not by Kysely's types.
export type Builder = Kysely<any>;

const builders = new Map<EngineKind, Builder>();

/** The builder of one engine kind: its compiler, and PostgreSQL's table names. */
export function builderFor(kind: EngineKind): Builder {
  let builder = builders.get(kind);
  if (builder) return builder;
  const k = kysely();
  const postgres = kind === 'postgres';
  builder = new k.Kysely({
    dialect: {
      createAdapter: () => (postgres ? new k.PostgresAdapter() : new k.SqliteAdapter()),
      createDriver: () => new k.DummyDriver(),
      createIntrospector: (db) => (postgres ? new k.PostgresIntrospector(db) : new k.SqliteIntrospector(db)),
      createQueryCompiler: () => (postgres ? new k.PostgresQueryCompiler() : new k.SqliteQueryCompiler()),
    },
    plugins: postgres ? [prefixPlugin(k)] : [],
  });
  builders.set(kind, builder);
  return builder;
}

/** Renames the declared tables to PostgreSQL's names (`calls` → `switchyard_calls`); aliases and CTEs stay. */
function prefixPlugin(k: typeof KyselyModule): KyselyPlugin {
  class Prefix extends k.OperationNodeTransformer {
    protected override transformTable(node: TableNode): TableNode {
      const name = node.table.identifier.name;
      if (node.table.schema || !declaredTables.has(name)) return super.transformTable(node);
      return k.TableNode.create(tableName('postgres', name));
    }
  }
  const prefix = new Prefix();
  return {
    transformQuery: ({ node }) => prefix.transformNode(node) as RootOperationNode,
    transformResult: async ({ result }) => result,
  };
}

/**
 * Of Kysely, what the stores' queries use (src/storage/kysely.ts), listed once: the builder, its compilers, `sql`. The
 * web build imports it when a query first runs (src/storage/load-kysely.web.ts).
 */
export {
  DummyDriver,
  Kysely,
  OperationNodeTransformer,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
  TableNode,
} from 'kysely';

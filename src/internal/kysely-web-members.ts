/** Of Kysely, what the stores' queries use (src/storage/kysely.ts), listed once: the builder, its compilers, `sql`. */
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

import type { Compilable, CompiledQuery, OperationNodeSource, RootOperationNode } from 'kysely';
import { type Builder, builderFor } from './kysely.ts';
import type { EngineKind, SchemaSpec } from './schema.ts';

/**
 * What the stores run their queries on: SQLite (`node:sqlite`), PostgreSQL (a `pg` pool) or memory. A store writes
 * each query once as a function of the engine's builder, and every engine runs the same query: the stored thing's
 * queries are written once, whatever keeps them. The engine calls the function when it runs the query, so the query
 * builder loads only when a query first runs (a gateway that only records its calls never loads it).
 */
export interface Queries {
  readonly kind: EngineKind;
  /** Runs a query built by a function of the builder, or a prepared one with its arguments. */
  run<Row = Record<string, unknown>>(query: Query<Row>, args?: Args, options?: RunOptions): Promise<Result<Row>>;
}

export interface StorageEngine extends Queries {
  /** SQLite's file (or `:memory:`), which errors may name; a PostgreSQL URL is never kept here. */
  readonly path?: string;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back (and its error thrown) when it rejects.
   * Queries of other callers wait until it ends: nothing else runs inside it.
   */
  transaction<T>(work: (tx: Queries) => Promise<T>): Promise<T>;
  /** Creates the schema's tables, or brings those an earlier version made up to date; once per engine and schema. */
  ready(schema: SchemaSpec): Promise<void>;
  /** `ready`, done before it returns, by the engines that can (SQLite, memory): a store's constructor calls it. */
  migrateNow?(schema: SchemaSpec): void;
  /** Whether the engine answers within `timeoutMs` (health checks); throws `StorageUnavailableError` if not. */
  ping?(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface Result<Row> {
  rows: Row[];
  /** Rows a write inserted, updated or deleted. */
  changes: number;
}

/** The longest any query may be given (`RunOptions.timeoutMs`): summaries of every row, batches of large records. */
export const LONGEST_QUERY_MS = 15_000;

export interface RunOptions {
  /**
   * PostgreSQL: how long the query may take (default: the engine's, a second; at most `LONGEST_QUERY_MS`); summaries
   * of every row take longer.
   */
  timeoutMs?: number;
}

export type Args = Readonly<Record<string, unknown>>;
type Built<Row> = Compilable<Row> & OperationNodeSource;
/** A query built when it runs, with the builder of the engine that runs it. */
export type Building<Row> = (db: Builder) => Built<Row>;
export type Query<Row> = Building<Row> | Prepared<Row>;

const PARAMETER = Symbol('parameter');

/** Where a prepared query's argument goes: a value of the tree, named. */
export interface Parameter {
  readonly [PARAMETER]: string;
}

export function isParameter(value: unknown): value is Parameter {
  return typeof value === 'object' && value !== null && PARAMETER in value;
}

export function parameterName(value: Parameter): string {
  return value[PARAMETER];
}

/** A named argument of a prepared query, typed as the value it stands for (any: the builder checks nothing here). */
// biome-ignore lint/suspicious/noExplicitAny: an argument stands for whatever value the query puts there.
export type Arg = <T = any>(name: string) => T;
const arg: Arg = <T>(name: string) => ({ [PARAMETER]: name }) as T;

/**
 * A query built and compiled once per engine kind, run with arguments: the queries of hot paths (a record batch, a
 * key check, an experiment's cells) skip building and compiling each time, and SQLite reuses its statement.
 */
export class Prepared<Row = Record<string, unknown>> {
  readonly #build: (db: Builder, arg: Arg) => Built<Row>;
  readonly #compiled = new Map<EngineKind, CompiledQuery<Row>>();

  constructor(build: (db: Builder, arg: Arg) => Built<Row>) {
    this.#build = build;
  }

  /** The query compiled for `kind`: its SQL and parameters (arguments as `Parameter`s), and its tree. */
  compiled(kind: EngineKind): CompiledQuery<Row> {
    let compiled = this.#compiled.get(kind);
    if (!compiled) this.#compiled.set(kind, (compiled = this.#build(builderFor(kind), arg).compile()));
    return compiled;
  }
}

export function prepare<Row = Record<string, unknown>>(build: (db: Builder, arg: Arg) => Built<Row>): Prepared<Row> {
  return new Prepared(build);
}

/** A query as SQL and bound values, and as its tree; a prepared query's parameters replaced by their arguments. */
export function compile<Row>(
  query: Query<Row>,
  kind: EngineKind,
  args: Args = {},
): { sql: string; values: unknown[]; node: RootOperationNode } {
  if (!(query instanceof Prepared)) {
    const compiled = query(builderFor(kind)).compile();
    return { sql: compiled.sql, values: [...compiled.parameters], node: compiled.query };
  }
  const compiled = query.compiled(kind);
  const values = compiled.parameters.map((value) => (isParameter(value) ? argument(args, value) : value));
  return { sql: compiled.sql, values, node: compiled.query };
}

/** A prepared query's tree, for the memory engine (which never needs the SQL). */
export function treeOf<Row>(query: Query<Row>, kind: EngineKind): RootOperationNode {
  return query instanceof Prepared
    ? query.compiled(kind).query
    : (query(builderFor(kind)).toOperationNode() as RootOperationNode);
}

export function argument(args: Args, parameter: Parameter): unknown {
  const name = parameterName(parameter);
  if (!Object.hasOwn(args, name)) throw new Error(`The prepared query's argument "${name}" is missing.`);
  return args[name];
}

/** Whether a query answers rows: a select, or a write that returns what it wrote. */
export function returnsRows(node: RootOperationNode): boolean {
  return node.kind === 'SelectQueryNode' || ('returning' in node && node.returning !== undefined);
}

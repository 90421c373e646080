import type { OperationNode } from 'kysely';
import {
  aggregates,
  type Context,
  compileExpression,
  type Evaluate,
  nameOf,
  type SubqueryRunner,
} from './memory-expression.ts';
import { candidates, type Lookup } from './memory-lookup.ts';
import type { MemoryTable, Row } from './memory-table.ts';
import { compare, distinct, rowKey, truth } from './memory-values.ts';

/**
 * A select of Kysely's operation tree as a function of the arguments (and of an enclosing query's row): sources and
 * joins, where, groups and aggregates, order (NULLs as SQLite orders them unless the query says), limit and offset,
 * set operations, and common table expressions (recursive ones too).
 */
export type Select = (context: Context) => Row[];

type Node = OperationNode & Record<string, unknown>;

export interface MemorySchema {
  table(name: string): MemoryTable | undefined;
}

/** The rows of each common table expression being evaluated, by name (innermost first). */
interface Scope {
  schema: MemorySchema;
  ctes: ReadonlyMap<string, { rows: Row[] }>;
}

export function compileSelect(node: OperationNode, schema: MemorySchema): Select {
  return selectIn(node as Node, { schema, ctes: new Map() });
}

function selectIn(node: Node, outer: Scope): Select {
  const ctes = new Map(outer.ctes);
  const scope: Scope = { schema: outer.schema, ctes };
  const withs = (((node.with as Node | undefined)?.expressions ?? []) as Node[]).map((cte) => {
    const name = String((((cte.name as Node).table as Node).table as Node & { identifier: Node }).identifier.name);
    const slot = { rows: [] as Row[] };
    ctes.set(name, slot);
    const expression = cte.expression as Node;
    const recursive = (expression.setOperations as Node[] | undefined)?.length && (node.with as Node).recursive;
    return { slot, run: recursive ? recursion(expression, scope, slot) : selectIn(expression, scope) };
  });
  const body = selectBody(node, scope);
  const sets = ((node.setOperations ?? []) as Node[]).map((set) => ({
    all: Boolean(set.all),
    run: selectIn(set.expression as Node, scope),
  }));
  return (context) => {
    for (const { slot, run } of withs) slot.rows = run(context);
    let rows = body(context);
    for (const set of sets) rows = set.all ? [...rows, ...set.run(context)] : distinct([...rows, ...set.run(context)]);
    return rows;
  };
}

/** `base UNION [ALL] step`: the step runs on the rows the last round added, until it adds none. */
function recursion(node: Node, scope: Scope, slot: { rows: Row[] }): Select {
  const base = selectBody(node, scope);
  const [set] = node.setOperations as Node[];
  const step = selectIn(set!.expression as Node, scope);
  return (context) => {
    const all = base(context);
    const seen = new Set(all.map(rowKey));
    for (let added = all; added.length > 0; ) {
      slot.rows = added;
      added = step(context).filter((row) => set!.all || !seen.has(rowKey(row)));
      for (const row of added) seen.add(rowKey(row));
      all.push(...added);
    }
    slot.rows = all;
    return all;
  };
}

function selectBody(node: Node, scope: Scope): Select {
  const subquery: SubqueryRunner = (child) => {
    const run = selectIn(child as Node, scope);
    return (context) => run({ args: context.args, rows: {}, outer: context });
  };
  const compile = (child: OperationNode) => compileExpression(child, subquery);
  const where = node.where ? compile(node.where as Node) : undefined;
  const sources = sourcesOf(
    node,
    scope,
    where === undefined ? undefined : ((node.where as Node).where as Node),
    compile,
  );
  const selections = ((node.selections ?? []) as Node[]).map((selection) =>
    selected(selection.selection as Node, compile),
  );
  const groupBy = (((node.groupBy as Node | undefined)?.items ?? []) as Node[]).map((item) =>
    compile(item.groupBy as Node),
  );
  const grouped = groupBy.length > 0 || ((node.selections ?? []) as Node[]).some((s) => aggregates(s));
  const order = (((node.orderBy as Node | undefined)?.items ?? []) as Node[]).map((item) => orderTerm(item, compile));
  const limit = node.limit ? compile((node.limit as Node).limit as Node) : undefined;
  const offset = node.offset ? compile((node.offset as Node).offset as Node) : undefined;
  return (context) => {
    let contexts = sources(context).filter((row) => !where || truth(where(row)) === true);
    if (grouped) contexts = groups(contexts, groupBy, context);
    // Outputs are made only when read: a page of 50 of 10,000 rows selects 50 (the size of a record, its JSON).
    const entries: Entry[] = contexts.map((row) => ({ row, out: undefined }));
    const outOf = (entry: Entry) => (entry.out ??= output(selections, entry.row));
    if (order.length > 0)
      entries.sort((a, b) => {
        for (const term of order) {
          const difference = term(a, b, outOf);
          if (difference !== 0) return difference;
        }
        return 0;
      });
    const from = offset ? Number(offset(context)) : 0;
    const count = limit ? Number(limit(context)) : Number.POSITIVE_INFINITY;
    return entries.slice(from, count < 0 ? undefined : from + count).map(outOf);
  };
}

interface Entry {
  row: Context;
  out: Row | undefined;
}

/** The rows of the sources (a table, a common table expression or a subquery, then each join), as contexts. */
function sourcesOf(
  node: Node,
  scope: Scope,
  where: Node | undefined,
  compile: (node: OperationNode) => Evaluate,
): (context: Context) => Context[] {
  const froms = ((node.from as Node | undefined)?.froms ?? []) as Node[];
  if (froms.length === 0) return (context) => [{ args: context.args, rows: {}, outer: context.outer }];
  const first = source(froms[0]!, scope);
  const firstRows = first.table ? candidates(first.table, first.alias, where) : undefined;
  const joins = ((node.joins ?? []) as Node[]).map((join) => {
    const joined = source(join.table as Node, scope);
    const on = (join.on as Node | undefined)?.on as Node | undefined;
    return {
      joined,
      left: join.joinType === 'LeftJoin',
      on: on ? compile(on) : undefined,
      lookup: joined.table ? candidates(joined.table, joined.alias, on, true) : undefined,
    };
  });
  const bind = binder(first.alias);
  return (context) => {
    let rows: Context[] = [];
    for (const row of firstRows ? firstRows(context) : first.rows(context))
      rows.push(new SourceContext(context.args, bind(row), context.outer));
    for (const join of joins) rows = rows.flatMap((row) => joinRow(row, join));
    return rows;
  };
}

function joinRow(
  context: Context,
  join: { joined: Source; left: boolean; on: Evaluate | undefined; lookup: Lookup | undefined },
): Context[] {
  const matches: Context[] = [];
  for (const other of join.lookup ? join.lookup(context) : join.joined.rows(context)) {
    const joined = { ...context, rows: { ...context.rows, [join.joined.alias]: other } };
    if (!join.on || truth(join.on(joined)) === true) matches.push(joined);
  }
  if (matches.length === 0 && join.left)
    matches.push({ ...context, rows: { ...context.rows, [join.joined.alias]: nullRow(join.joined.table) } });
  return matches;
}

/** A context of one row per source, made by a class: one is made for every row read, and V8 makes these fast. */
class SourceContext implements Context {
  readonly args: Context['args'];
  readonly rows: Record<string, Row>;
  readonly outer: Context | undefined;
  group: Context[] | undefined = undefined;
  constructor(args: Context['args'], rows: Record<string, Row>, outer: Context | undefined) {
    this.args = args;
    this.rows = rows;
    this.outer = outer;
  }
}

/** The rows of one source as a context's `rows`, by a constructor of its own (one shape for every row). */
function binder(alias: string): (row: Row) => Record<string, Row> {
  function Bound(this: Record<string, Row>, row: Row) {
    this[alias] = row;
  }
  return (row) => new (Bound as unknown as new (row: Row) => Record<string, Row>)(row);
}

interface Source {
  alias: string;
  table: MemoryTable | undefined;
  rows: (context: Context) => Iterable<Row>;
}

function source(node: Node, scope: Scope): Source {
  const alias = node.kind === 'AliasNode' ? String((node.alias as Node).name) : undefined;
  const target = (node.kind === 'AliasNode' ? node.node : node) as Node;
  if (target.kind === 'SelectQueryNode') {
    const run = selectIn(target, scope);
    return { alias: alias ?? '', table: undefined, rows: (context) => run({ ...context, rows: {} }) };
  }
  const name = String(((target.table as Node).identifier as Node).name);
  const cte = scope.ctes.get(name);
  if (cte) return { alias: alias ?? name, table: undefined, rows: () => cte.rows };
  const table = scope.schema.table(name);
  if (!table) throw new Error(`The memory engine has no table "${name}".`);
  return { alias: alias ?? name, table, rows: () => table.rows() };
}

/** One context per group, holding its members; without groups, one over every row (SQL's aggregate of none). */
function groups(rows: Context[], keys: Evaluate[], context: Context): Context[] {
  if (keys.length === 0)
    return [
      rows.length > 0
        ? { ...rows[0]!, group: rows }
        : { args: context.args, rows: {}, group: [], outer: context.outer },
    ];
  const byKey = new Map<string, Context[]>();
  for (const row of rows) {
    const key = rowKey(keys.map((key) => key(row)));
    const members = byKey.get(key);
    if (members) members.push(row);
    else byKey.set(key, [row]);
  }
  return [...byKey.values()].map((members) => ({ ...members[0]!, group: members }));
}

type Selected = (context: Context, out: Row) => void;

function selected(node: Node, compile: (node: OperationNode) => Evaluate): Selected {
  const all =
    node.kind === 'SelectAllNode' || (node.kind === 'ReferenceNode' && (node.column as Node).kind === 'SelectAllNode');
  if (all) {
    const table =
      node.kind === 'ReferenceNode'
        ? String(((node.table as Node).table as Node & { identifier: Node }).identifier.name)
        : undefined;
    return (context, out) => {
      for (const [alias, row] of Object.entries(context.rows))
        if (table === undefined || alias === table) Object.assign(out, row);
    };
  }
  const name = nameOf(node);
  const value = compile(node);
  return (context, out) => {
    out[name] = value(context);
  };
}

function output(selections: Selected[], context: Context): Row {
  const out: Row = {};
  for (const select of selections) select(context, out);
  return out;
}

type OrderTerm = (a: Entry, b: Entry, outOf: (entry: Entry) => Row) => number;

/**
 * An order item: evaluated on the row, except a bare name that no source has (an alias of the output: an aggregate
 * named in the query), read from the output.
 */
function orderTerm(item: Node, compile: (node: OperationNode) => Evaluate): OrderTerm {
  const by = item.orderBy as Node;
  const bare = by.kind === 'ReferenceNode' && !by.table && (by.column as Node).kind === 'ColumnNode';
  const named = bare ? nameOf(by) : undefined;
  const value = compile(by);
  const read = (entry: Entry, outOf: (entry: Entry) => Row) =>
    (named !== undefined && !inSources(entry.row, named) ? outOf(entry)[named] : value(entry.row)) ?? null;
  const direction = ((item.direction as Node | undefined)?.sqlFragments as string[] | undefined)?.[0];
  const descending = direction?.toLowerCase() === 'desc';
  // SQLite's default: NULL is the smallest value.
  const nullsFirst = item.nulls === undefined ? !descending : item.nulls === 'first';
  return (a, b, outOf) => {
    const x = read(a, outOf);
    const y = read(b, outOf);
    if (x === null || y === null) return x === y ? 0 : (x === null) === nullsFirst ? -1 : 1;
    const difference = compare(x, y);
    return descending ? -difference : difference;
  };
}

function inSources(context: Context, column: string): boolean {
  for (const alias in context.rows) if (column in context.rows[alias]!) return true;
  return false;
}

function nullRow(table: MemoryTable | undefined): Row {
  return Object.fromEntries(Object.keys(table?.spec.columns ?? {}).map((column) => [column, null]));
}

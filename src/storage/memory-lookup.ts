import type { OperationNode } from 'kysely';
import { type Context, compileExpression, type Evaluate } from './memory-expression.ts';
import type { MemoryTable, Row } from './memory-table.ts';

/**
 * Which rows of a table a condition can hold, read through its hashes instead of every row: the ANDed equalities of
 * the table's own columns with a value (an argument, a literal, another table's column). The whole primary key
 * reads one row; else the hash whose rows are fewest (an experiment's cell key, not the experiment's 10,000 cells).
 * The condition itself is still checked on each row. The rows are the hash's own: a write reads them all first.
 */
export type Lookup = (context: Context) => Iterable<Row>;

type Node = OperationNode & Record<string, unknown>;

export function candidates(
  table: MemoryTable,
  alias: string,
  condition: OperationNode | undefined,
  /** Whether the condition may compare with another source's column (a join's: the other row is known). */
  joined = false,
): Lookup | undefined {
  const equalities = new Map<string, Evaluate>();
  for (const term of conjuncts(condition as Node | undefined)) {
    if (term.kind !== 'BinaryOperationNode' || (term.operator as Node).operator !== '=') continue;
    const [left, right] = [term.leftOperand as Node, term.rightOperand as Node];
    const own = (side: Node) => ownColumn(side, table, alias);
    const [column, value] =
      own(left) && !own(right) ? [own(left), right] : own(right) && !own(left) ? [own(right), left] : [];
    if (column && value && independent(value, table, alias, joined) && !equalities.has(column))
      equalities.set(
        column,
        compileExpression(value, () => () => []),
      );
  }
  const key = table.spec.primaryKey;
  if (key.every((column) => equalities.has(column))) {
    const values = key.map((column) => equalities.get(column)!);
    return (context) => {
      const row = table.byKey(values.map((value) => value(context)));
      return row ? [row] : [];
    };
  }
  const hashed = [...table.hashes()].filter((columns) => columns.every((column) => equalities.has(column)));
  if (hashed.length === 0) return undefined;
  const values = hashed.map((columns) => columns.map((column) => equalities.get(column)!));
  return (context) => {
    let best: ReadonlySet<Row> | undefined;
    for (const [index, columns] of hashed.entries()) {
      const wanted = values[index]!.map((value) => value(context));
      if (wanted.includes(null)) return [];
      const rows = table.withValues(columns, wanted);
      if (!best || rows.size < best.size) best = rows;
    }
    return best!;
  };
}

function conjuncts(node: Node | undefined): Node[] {
  if (!node) return [];
  if (node.kind === 'AndNode') return [...conjuncts(node.left as Node), ...conjuncts(node.right as Node)];
  if (node.kind === 'ParensNode' || node.kind === 'WhereNode' || node.kind === 'OnNode')
    return conjuncts((node.node ?? node.where ?? node.on) as Node);
  return [node];
}

/** The column a reference reads when it is of this table (by its name or alias, or unqualified and its own). */
function ownColumn(node: Node, table: MemoryTable, alias: string): string | undefined {
  if (node.kind !== 'ReferenceNode' || (node.column as Node).kind !== 'ColumnNode') return undefined;
  const column = String(((node.column as Node).column as Node).name);
  const qualifier = node.table
    ? String(((node.table as Node).table as Node & { identifier: Node }).identifier.name)
    : undefined;
  if (qualifier !== undefined) return qualifier === alias ? column : undefined;
  return column in table.spec.columns ? column : undefined;
}

/** Whether a value can be known before the row is: a literal, an argument, or a reference to another source. */
function independent(node: Node, table: MemoryTable, alias: string, joined: boolean): boolean {
  if (node.kind === 'ValueNode') return true;
  if (node.kind !== 'ReferenceNode' || !joined) return false;
  return node.table !== undefined && ownColumn(node, table, alias) === undefined;
}

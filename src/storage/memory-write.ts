import type { OperationNode } from 'kysely';
import type { Result } from './engine.ts';
import { type Context, compileExpression, type Evaluate, nameOf } from './memory-expression.ts';
import { candidates } from './memory-lookup.ts';
import { compileSelect, type MemorySchema } from './memory-select.ts';
import type { MemoryTable, Row, Undo } from './memory-table.ts';
import { truth } from './memory-values.ts';

/**
 * Inserts (with `ON CONFLICT DO NOTHING | DO UPDATE SET … WHERE …`), updates and deletes of Kysely's operation tree
 * on the memory engine's tables, each with what it returns. Changes are recorded in `undo`: the engine takes a
 * failed statement back, and a failed transaction's statements.
 */
export type Write = (context: Context, undo: Undo[]) => Result<Row>;

type Node = OperationNode & Record<string, unknown>;

export function compileWrite(node: OperationNode, schema: MemorySchema): Write {
  const n = node as Node;
  const subquery = (child: OperationNode) => {
    const run = compileSelect(child, schema);
    return (context: Context) => run({ args: context.args, rows: {}, outer: context });
  };
  const compile = (child: OperationNode) => compileExpression(child, subquery);
  if (node.kind === 'InsertQueryNode') return insert(n, tableOf(n.into as Node, schema), compile);
  if (node.kind === 'UpdateQueryNode') return update(n, schema, compile);
  if (node.kind === 'DeleteQueryNode') {
    const [from] = (n.from as Node).froms as Node[];
    return remove(n, from!, schema, compile);
  }
  throw new Error(`The memory engine does not run ${node.kind}.`);
}

function tableOf(node: Node, schema: MemorySchema): MemoryTable {
  const target = (node.kind === 'AliasNode' ? node.node : node) as Node;
  const name = String(((target.table as Node).identifier as Node).name);
  const table = schema.table(name);
  if (!table) throw new Error(`The memory engine has no table "${name}".`);
  return table;
}

function aliasOf(node: Node, table: MemoryTable): string {
  return node.kind === 'AliasNode' ? String((node.alias as Node).name) : table.spec.name;
}

function insert(n: Node, table: MemoryTable, compile: (node: OperationNode) => Evaluate): Write {
  const columns = ((n.columns ?? []) as Node[]).map((column) => String((column.column as Node).name));
  const rows = (((n.values as Node).values ?? []) as Node[]).map((item) =>
    item.kind === 'PrimitiveValueListNode'
      ? (item.values as unknown[]).map((value) => compile({ kind: 'ValueNode', value } as OperationNode))
      : (item.values as Node[]).map((value) => compile(value)),
  );
  const conflict = n.onConflict as Node | undefined;
  const updates = ((conflict?.updates ?? []) as Node[]).map(columnUpdate(compile));
  const updateWhere = conflict?.updateWhere ? compile(conflict.updateWhere as Node) : undefined;
  const returning = returningOf(n, compile);
  const name = table.spec.name;
  return (context, undo) => {
    const out: Row[] = [];
    let changes = 0;
    for (const values of rows) {
      const row: Row = { ...table.defaults };
      for (let index = 0; index < columns.length; index++) row[columns[index]!] = values[index]!(context) ?? null;
      const existing = conflict ? table.conflicting(row) : undefined;
      if (!existing) {
        table.insert(row, undo);
        changes += 1;
        if (returning) out.push(returning({ ...context, rows: { [name]: row } }));
        continue;
      }
      if (conflict!.doNothing) continue;
      const scope: Context = { ...context, rows: { [name]: existing, excluded: row } };
      if (updateWhere && truth(updateWhere(scope)) !== true) continue;
      const next = { ...existing };
      for (const set of updates) set(scope, next);
      table.update(existing, next, undo);
      changes += 1;
      if (returning) out.push(returning({ ...context, rows: { [name]: next } }));
    }
    return { rows: out, changes };
  };
}

function update(n: Node, schema: MemorySchema, compile: (node: OperationNode) => Evaluate): Write {
  const table = tableOf(n.table as Node, schema);
  const alias = aliasOf(n.table as Node, table);
  const updates = ((n.updates ?? []) as Node[]).map(columnUpdate(compile));
  return changing(n, table, alias, compile, (row, context, undo) => {
    const next = { ...row };
    for (const set of updates) set(context, next);
    table.update(row, next, undo);
    return next;
  });
}

function remove(n: Node, from: Node, schema: MemorySchema, compile: (node: OperationNode) => Evaluate): Write {
  const table = tableOf(from, schema);
  return changing(n, table, aliasOf(from, table), compile, (row, _, undo) => {
    table.delete(row, undo);
    return row;
  });
}

/** The rows the where picks (all read first, then changed), each changed by `change`. */
function changing(
  n: Node,
  table: MemoryTable,
  alias: string,
  compile: (node: OperationNode) => Evaluate,
  change: (row: Row, context: Context, undo: Undo[]) => Row,
): Write {
  const condition = (n.where as Node | undefined)?.where as Node | undefined;
  const where = condition ? compile(condition) : undefined;
  const lookup = candidates(table, alias, condition);
  const returning = returningOf(n, compile);
  return (context, undo) => {
    const picked: Array<{ row: Row; scope: Context }> = [];
    for (const row of lookup ? lookup(context) : [...table.rows()]) {
      const scope = { ...context, rows: { [alias]: row } };
      if (!where || truth(where(scope)) === true) picked.push({ row, scope });
    }
    const out: Row[] = [];
    for (const { row, scope } of picked) {
      const changed = change(row, scope, undo);
      if (returning) out.push(returning({ ...context, rows: { [alias]: changed } }));
    }
    return { rows: out, changes: picked.length };
  };
}

function columnUpdate(compile: (node: OperationNode) => Evaluate) {
  return (node: Node) => {
    const column = nameOf(node.column as Node);
    const value = compile(node.value as Node);
    return (context: Context, next: Row) => {
      next[column] = value(context);
    };
  };
}

function returningOf(n: Node, compile: (node: OperationNode) => Evaluate): ((context: Context) => Row) | undefined {
  const selections = ((n.returning as Node | undefined)?.selections ?? []) as Node[];
  if (selections.length === 0) return undefined;
  const columns = selections.map((selection) => {
    const node = selection.selection as Node;
    return { name: nameOf(node), value: compile(node) };
  });
  return (context) => Object.fromEntries(columns.map(({ name, value }) => [name, value(context)]));
}

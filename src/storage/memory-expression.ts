import type { OperationNode } from 'kysely';
import { type Args, argument, isParameter } from './engine.ts';
import type { Row } from './memory-table.ts';
import { compare, FUNCTIONS, MEMORY_FUNCTIONS, OPERATORS, truth } from './memory-values.ts';
import { PERCENTILE_FUNCTION, percentile } from './percentile.ts';

/**
 * Expressions of Kysely's operation tree, made once into plain functions of a row (a tree walk at build time, no
 * `eval`): what the memory engine evaluates, with SQL's meaning (NULL unknown in comparisons and logic, aggregates
 * leaving NULLs out) so that it answers as SQLite and PostgreSQL do.
 */

/** What an expression reads: each source's current row (by table or alias), the query's arguments, its group. */
export interface Context {
  args: Args;
  rows: Record<string, Row>;
  /** The rows of the group being aggregated. */
  group?: Context[] | undefined;
  /** The enclosing query's context, for a subquery's references to it. */
  outer?: Context | undefined;
}

export type Evaluate = (context: Context) => unknown;

/** Runs a subquery (for `exists` and `in (select …)`): its rows, given the enclosing context. */
export type SubqueryRunner = (node: OperationNode) => (context: Context) => Row[];

type Node = OperationNode & Record<string, unknown>;

export function compileExpression(node: OperationNode, subquery: SubqueryRunner): Evaluate {
  const n = node as Node;
  switch (node.kind) {
    case 'ValueNode':
      return constantOf(n.value);
    case 'ReferenceNode':
    case 'ColumnNode':
      return reference(node);
    case 'ParensNode':
    case 'WhereNode':
    case 'OnNode':
    case 'CastNode':
      return compileExpression((n.node ?? n.where ?? n.on ?? n.expression) as OperationNode, subquery);
    case 'AliasNode':
      return compileExpression(n.node as OperationNode, subquery);
    case 'SelectionNode':
      return compileExpression(n.selection as OperationNode, subquery);
    case 'AndNode':
    case 'OrNode':
      return logic(
        node.kind === 'AndNode',
        compileExpression(n.left as Node, subquery),
        compileExpression(n.right as Node, subquery),
      );
    case 'BinaryOperationNode':
      return binary(n, subquery);
    case 'UnaryOperationNode':
      return unary(n, subquery);
    case 'FunctionNode':
      return call(
        String(n.func),
        (n.arguments as OperationNode[]).map((arg) => compileExpression(arg, subquery)),
      );
    case 'AggregateFunctionNode':
      return aggregate(n, subquery);
    case 'CaseNode':
      return caseOf(n, subquery);
    case 'RawNode':
      // `sql.lit(value)`: a literal written into the SQL (a partial index's condition needs it), nothing else raw.
      if ((n.sqlFragments as string[]).every((fragment) => fragment === '') && (n.parameters as unknown[]).length === 1)
        return compileExpression((n.parameters as OperationNode[])[0]!, subquery);
      throw new Error('The memory engine does not run raw SQL: give the expression a memory form (engine-sql.ts).');
    case 'SelectQueryNode': {
      const rows = subquery(node);
      return (context) => {
        const first = rows(context)[0];
        return first === undefined ? null : Object.values(first)[0];
      };
    }
    default:
      throw new Error(`The memory engine does not run ${node.kind}.`);
  }
}

/** Names a selection: its alias, or the column it reads. */
export function nameOf(node: OperationNode): string {
  const n = node as Node;
  if (node.kind === 'AliasNode') return String((n.alias as Node).name);
  if (node.kind === 'ReferenceNode') return nameOf(n.column as OperationNode);
  if (node.kind === 'ColumnNode') return String((n.column as Node).name);
  throw new Error(`The memory engine needs a name for a selected ${node.kind} (give it an alias).`);
}

function constantOf(value: unknown): Evaluate {
  if (isParameter(value)) return (context) => argument(context.args, value) ?? null;
  const constant = value ?? null;
  return () => constant;
}

/** A column, of the table or alias named, else of whichever source has it (then of an enclosing query's). */
function reference(node: OperationNode): Evaluate {
  const n = node as Node;
  const column = node.kind === 'ColumnNode' ? String((n.column as Node).name) : nameOf(n.column as OperationNode);
  const table = n.table ? String(((n.table as Node).table as Node & { identifier: Node }).identifier.name) : undefined;
  return (context) => {
    for (let scope: Context | undefined = context; scope; scope = scope.outer) {
      if (table !== undefined) {
        const row = scope.rows[table];
        if (row) return row[column] ?? null;
        continue;
      }
      for (const alias in scope.rows) if (column in scope.rows[alias]!) return scope.rows[alias]![column] ?? null;
    }
    // A group of no rows (an aggregate over nothing) reads NULL, as SQL does.
    if (context.group?.length === 0) return null;
    throw new Error(`The memory engine found no column "${table ? `${table}.` : ''}${column}".`);
  };
}

/** `CASE [value] WHEN … THEN … [ELSE …] END`: the first branch that holds (or equals the value), else NULL. */
function caseOf(n: Node, subquery: SubqueryRunner): Evaluate {
  const value = n.value ? compileExpression(n.value as Node, subquery) : undefined;
  const branches = ((n.when ?? []) as Node[]).map((when) => ({
    condition: compileExpression(when.condition as Node, subquery),
    result: when.result ? compileExpression(when.result as Node, subquery) : () => null,
  }));
  const otherwise = n.else ? compileExpression(n.else as Node, subquery) : () => null;
  return (context) => {
    const subject = value?.(context);
    for (const { condition, result } of branches) {
      const holds = value ? OPERATORS['=']!(subject, condition(context)) : condition(context);
      if (truth(holds) === true) return result(context);
    }
    return otherwise(context);
  };
}

function logic(and: boolean, left: Evaluate, right: Evaluate): Evaluate {
  return (context) => {
    const a = truth(left(context));
    if (a === !and) return a;
    const b = truth(right(context));
    if (b === !and) return b;
    return a === null || b === null ? null : and;
  };
}

function binary(n: Node, subquery: SubqueryRunner): Evaluate {
  const operator = String((n.operator as Node).operator);
  const left = compileExpression(n.leftOperand as Node, subquery);
  const rightNode = n.rightOperand as Node;
  if (operator === 'in' || operator === 'not in') {
    const list = listOf(rightNode, subquery);
    const negate = operator === 'not in';
    return (context) => {
      const value = left(context);
      if (value === null) return null;
      const found = list(context).some((item) => compare(item, value) === 0);
      return negate ? !found : found;
    };
  }
  const right = compileExpression(rightNode, subquery);
  const test = OPERATORS[operator];
  if (!test) throw new Error(`The memory engine does not run the operator "${operator}".`);
  return (context) => test(left(context), right(context));
}

function listOf(node: Node, subquery: SubqueryRunner): (context: Context) => unknown[] {
  if (node.kind === 'PrimitiveValueListNode') {
    const values = (node.values as unknown[]).map(constantOf);
    return (context) => values.map((value) => value(context));
  }
  if (node.kind === 'ValueListNode') {
    const values = (node.values as OperationNode[]).map((value) => compileExpression(value, subquery));
    return (context) => values.map((value) => value(context));
  }
  if (node.kind === 'SelectQueryNode') {
    const rows = subquery(node);
    return (context) => rows(context).map((row) => Object.values(row)[0]);
  }
  const value = compileExpression(node, subquery);
  return (context) => value(context) as unknown[];
}

function unary(n: Node, subquery: SubqueryRunner): Evaluate {
  const operator = String((n.operator as Node).operator);
  const operand = n.operand as Node;
  if (operator === 'exists' || operator === 'not exists') {
    const rows = subquery(operand);
    const negate = operator === 'not exists';
    return (context) => rows(context).length > 0 !== negate;
  }
  const value = compileExpression(operand, subquery);
  if (operator === 'not')
    return (context) => {
      const t = truth(value(context));
      return t === null ? null : !t;
    };
  if (operator === '-')
    return (context) => {
      const v = value(context);
      return v === null ? null : -Number(v);
    };
  throw new Error(`The memory engine does not run the operator "${operator}".`);
}

function call(name: string, args: Evaluate[]): Evaluate {
  const fn = FUNCTIONS[name] ?? MEMORY_FUNCTIONS.get(name);
  if (!fn) throw new Error(`The memory engine does not run the function "${name}".`);
  return (context) => fn(args.map((arg) => arg(context)));
}

function aggregate(n: Node, subquery: SubqueryRunner): Evaluate {
  const name = String(n.func).toLowerCase();
  const all = (arg: Node) =>
    arg.kind === 'SelectAllNode' || (arg.selection as Node | undefined)?.kind === 'SelectAllNode';
  const aggregated = (n.aggregated as Node[]).filter((arg) => !all(arg));
  const [value, ...rest] = aggregated.map((arg) => compileExpression(arg, subquery));
  const filter = n.filter ? compileExpression(n.filter as OperationNode, subquery) : undefined;
  return (context) => {
    const members = context.group ?? [context];
    // One pass, no arrays between: an aggregate may run over every cell of an experiment for every cell it runs.
    let count = 0;
    let sum = 0;
    let least: unknown = null;
    let most: unknown = null;
    const kept: number[] = [];
    for (const member of members) {
      if (filter && truth(filter(member)) !== true) continue;
      if (!value) {
        count += 1;
        continue;
      }
      const item = value(member);
      if (item === null || item === undefined) continue;
      count += 1;
      if (name === 'sum' || name === 'avg') sum += Number(item);
      else if (name === 'min') least = least === null || compare(item, least) < 0 ? item : least;
      else if (name === 'max') most = most === null || compare(item, most) > 0 ? item : most;
      else if (name === PERCENTILE_FUNCTION) kept.push(Number(item));
    }
    if (name === 'count') return count;
    if (count === 0) return null;
    switch (name) {
      case 'sum':
        return sum;
      case 'avg':
        return sum / count;
      case 'min':
        return least;
      case 'max':
        return most;
      case PERCENTILE_FUNCTION:
        return percentile(kept, Number(rest[0]!(members[0] ?? context)));
      default:
        throw new Error(`The memory engine does not run the aggregate "${name}".`);
    }
  };
}

/** Whether an expression aggregates (so the query groups its rows). */
export function aggregates(node: OperationNode | undefined): boolean {
  if (!node || typeof node !== 'object') return false;
  if (node.kind === 'AggregateFunctionNode') return true;
  if (node.kind === 'SelectQueryNode') return false;
  return Object.values(node).some((child) =>
    Array.isArray(child)
      ? child.some((item) => aggregates(item as OperationNode))
      : typeof child === 'object' && child !== null && 'kind' in child && aggregates(child as OperationNode),
  );
}

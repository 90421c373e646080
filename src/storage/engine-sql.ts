import type { AliasableExpression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Queries } from './engine.ts';
import { kysely } from './kysely.ts';
import { MEMORY_FUNCTIONS } from './memory-values.ts';
import { PERCENTILE_FUNCTION } from './percentile.ts';
import type { EngineKind } from './schema.ts';

/**
 * The few expressions the engines write differently, one helper each: a list given as one value, a key of a
 * record's metadata, a percentile, an ISO time as milliseconds, text as bytes. The stores' queries call these and
 * are otherwise the same for every engine; the memory engine's forms are functions it runs (registered below).
 */

// biome-ignore lint/suspicious/noExplicitAny: the helpers take any table's expressions.
type Eb = ExpressionBuilder<any, any>;
// biome-ignore lint/suspicious/noExplicitAny: as above.
type Value = AliasableExpression<any>;
type Condition = AliasableExpression<SqlBool>;

/** `column` is one of `values` (a list, or a prepared query's argument holding one), bound as one value. */
export function anyOf(kind: EngineKind, eb: Eb, column: string, values: unknown): Condition {
  const { sql } = kysely();
  const ref = eb.ref(column);
  // SQLite binds a list as its JSON text (sqlite-engine.ts), read back by json_each.
  if (kind === 'sqlite') return sql<boolean>`${ref} IN (SELECT value FROM json_each(${values}))`;
  if (kind === 'postgres') return sql<boolean>`${ref} = ANY(${values}::text[])`;
  return eb.fn<boolean>(ANY, [ref, eb.val(values)]);
}

/** The call record in `column` has `key` in its metadata with exactly `value` (a key is never read as a path). */
export function metadataIs(kind: EngineKind, eb: Eb, column: string, key: string, value: string): Condition {
  const { sql } = kysely();
  const ref = eb.ref(column);
  if (kind === 'sqlite')
    return sql<boolean>`EXISTS (SELECT 1 FROM json_each(${ref}, '$.metadata') WHERE key = ${key} AND value = ${value})`;
  if (kind === 'postgres')
    return sql<boolean>`(${sql.raw(readableJson(column))} -> 'metadata' ->> ${key}::text) = ${value}::text`;
  return eb.fn<boolean>(METADATA_IS, [ref, eb.val(key), eb.val(value)]);
}

/**
 * A text written into the SQL, not bound: a partial index (`WHERE status = 'completed'`) serves a query only when its
 * condition is there as a literal.
 */
export function literal(value: string) {
  return kysely().sql.lit(value);
}

/**
 * A query's LIMIT (or OFFSET), written into the SQL: SQLite orders for a known LIMIT 1 ten times faster than for a
 * bound one (a reuse lookup: 3.6 µs against 18 µs).
 */
export function atMost(rows: number) {
  if (!Number.isSafeInteger(rows) || rows < 0) throw new Error(`A row count must be a whole number: ${rows}.`);
  return kysely().sql.lit(rows);
}

/** The exact percentile of `column` in each group, interpolated between ranks (`percentile.ts`). */
export function percentileOf(kind: EngineKind, eb: Eb, column: string, fraction: number): Value {
  const { sql } = kysely();
  if (kind === 'postgres')
    return sql<number>`percentile_cont(${sql.lit(fraction)}) WITHIN GROUP (ORDER BY ${eb.ref(column)}::float8)`;
  return eb.fn.agg<number>(PERCENTILE_FUNCTION, [eb.ref(column), eb.lit(fraction)]);
}

/** An ISO time (UTC) as milliseconds since the epoch. */
export function epochMs(kind: EngineKind, eb: Eb, column: string): Value {
  const { sql } = kysely();
  if (kind === 'sqlite') return sql<number>`(unixepoch(${eb.ref(column)}, 'subsec') * 1000)`;
  if (kind === 'postgres') return sql<number>`(extract(epoch from ${eb.ref(column)}::timestamptz) * 1000)`;
  return eb.fn<number>(EPOCH_MS, [eb.ref(column)]);
}

/** Text as the UTF-8 bytes stored (SQLite): a page of records is sent without decoding and encoding them again. */
export function asBytes(kind: EngineKind, eb: Eb, column: string): Value {
  return kind === 'sqlite' ? kysely().sql`CAST(${eb.ref(column)} AS BLOB)` : eb.ref(column);
}

/**
 * A select that locks the rows it reads until the transaction ends, where rows lock (PostgreSQL, `FOR UPDATE` or
 * `FOR SHARE`); SQLite's and memory's transactions hold the whole database already.
 */
export function locking<Query extends { forUpdate(of?: never): Query; forShare(of?: never): Query }>(
  kind: EngineKind,
  query: Query,
  mode: 'update' | 'share' = 'update',
  /** The table (or alias) whose rows are locked, when the query reads others too. */
  of?: string,
): Query {
  if (kind !== 'postgres') return query;
  return mode === 'update' ? query.forUpdate(of as never) : query.forShare(of as never);
}

/**
 * `column` (JSON as text) as json PostgreSQL reads. JSON.stringify writes U+0000 and lone surrogates as `\u`
 * escapes (never a surrogate pair: those are written as themselves), and PostgreSQL's json refuses both when it
 * reads a value out of the text: each becomes `\ufffd`. An escape is one only after an even run of backslashes
 * (`\\u0000` is a backslash and the text u0000), which the lookbehind and the kept run make sure of.
 */
export function readableJson(column: string): string {
  const unreadable = String.raw`(?<!\\)((?:\\\\)*)\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})`;
  return `regexp_replace(${column}, '${unreadable}', '${String.raw`\1\\ufffd`}', 'g')::json`;
}

const ANY = 'switchyard_any';
const METADATA_IS = 'switchyard_metadata_is';
const EPOCH_MS = 'switchyard_epoch_ms';

MEMORY_FUNCTIONS.set(ANY, ([value, values]) => (value === null ? null : (values as unknown[]).includes(value)));
MEMORY_FUNCTIONS.set(METADATA_IS, ([record, key, value]) => {
  const metadata = (record as { metadata?: Record<string, unknown> } | null)?.metadata;
  return metadata !== undefined && Object.hasOwn(metadata, key as string) && metadata[key as string] === value;
});
MEMORY_FUNCTIONS.set(EPOCH_MS, ([time]) => (time === null ? null : Date.parse(String(time))));

/**
 * Waits until no other transaction holds `name`, then holds it until this one ends: writers of one thing that lock
 * no row in common queue here (PostgreSQL's advisory lock, by the name's hash: a collision only queues two names
 * together). SQLite and memory run one write transaction at a time already.
 */
export async function queueBehind(tx: Queries, name: string): Promise<void> {
  if (tx.kind !== 'postgres') return;
  const { sql } = kysely();
  await tx.run((db) => db.selectNoFrom(sql`pg_advisory_xact_lock(hashtextextended(${name}, 0))`.as('held')));
}

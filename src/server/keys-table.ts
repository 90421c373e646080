import { MAX_DEPTH } from '../access/key-chain.ts';
import { prepare } from '../storage/engine.ts';
import { anyOf } from '../storage/engine-sql.ts';
import { type Builder, kysely } from '../storage/kysely.ts';
import { column, defineSchema, type EngineKind } from '../storage/schema.ts';

/**
 * The API keys' table and its queries. A key's grant is kept as JSON text in its columns (`scopes` NULL: a key from
 * before scopes, an admin key); `parent_id` names the key that minted it, so a key's lineage is walked up and down.
 */
export const KEYS_SCHEMA = defineSchema({
  name: 'keys',
  // 2: mcp_tools, the MCP tools a key reaches (`src/access/mcp-tools.ts`); NULL for the keys before it: the default.
  // 3: sensitive_data, what a key's calls do with personal data and secrets (`src/guardrails/`); NULL: the gateway's.
  // 4: limits, the key's own rate, in-flight and budget limits as JSON (`src/access/key-limits.ts`); NULL: none.
  version: 4,
  tables: [
    {
      name: 'api_keys',
      columns: {
        id: column.text({ notNull: true }),
        hash: column.bytes({ notNull: true }),
        prefix: column.text({ notNull: true }),
        name: column.text(),
        created_at: column.text({ notNull: true }),
        revoked_at: column.text(),
        scopes: column.text(),
        allowed_agents: column.text(),
        allowed_models: column.text(),
        expires_at: column.text(),
        parent_id: column.text(),
        mcp_tools: column.text(),
        sensitive_data: column.text(),
        limits: column.text(),
      },
      primaryKey: ['id'],
      unique: ['hash'],
      indexes: [{ suffix: 'parent', columns: ['parent_id'] }],
    },
  ],
});

const COLUMNS = [
  'id',
  'prefix',
  'name',
  'created_at',
  'revoked_at',
  'scopes',
  'allowed_agents',
  'allowed_models',
  'expires_at',
  'parent_id',
  'mcp_tools',
  'sensitive_data',
  'limits',
] as const;
const LINEAGE = ['id', 'parent_id', 'revoked_at', 'expires_at', 'scopes', 'limits'] as const;

/** Every key, in the order they were made (ties: SQLite's order of writing, PostgreSQL's ids, memory's writing). */
export function keys(kind: EngineKind) {
  return prepare((db) => inOrderMade(kind, db));
}

/** The keys of `ids` (those under a key: `descendants`), in `keys`'s order, read without any other row. */
export function keysAmong(kind: EngineKind, ids: readonly string[]) {
  return (db: Builder) => inOrderMade(kind, db, (select) => select.where((eb) => anyOf(kind, eb, 'id', ids)));
}

type KeySelect = ReturnType<typeof selectKeys>;
const selectKeys = (db: Builder) => db.selectFrom('api_keys').select([...COLUMNS]);

function inOrderMade(kind: EngineKind, db: Builder, narrow: (select: KeySelect) => KeySelect = (select) => select) {
  const made = narrow(selectKeys(db)).orderBy('created_at');
  if (kind === 'sqlite') return made.orderBy(kysely().sql`rowid`);
  return kind === 'postgres' ? made.orderBy('id') : made;
}

export const byHash = prepare((db, arg) =>
  db
    .selectFrom('api_keys')
    .select(['hash', ...COLUMNS])
    .where('hash', '=', arg('hash')),
);
export const keyOrPrefix = prepare((db, arg) =>
  db
    .selectFrom('api_keys')
    .select([...COLUMNS])
    .where((eb) => eb.or([eb('id', '=', arg('id')), eb('prefix', '=', arg('prefix'))])),
);
export const setLimits = prepare((db, arg) =>
  db
    .updateTable('api_keys')
    .set({ limits: arg('limits') })
    .where('id', '=', arg('id')),
);
export const children = prepare((db, arg) =>
  db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('parent_id', '=', arg('parent'))
    .where('revoked_at', 'is', null),
);
export const live = prepare((db) =>
  db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('revoked_at', 'is', null),
);

export function parentRow(db: Builder, id: string) {
  return db
    .selectFrom('api_keys')
    .select([...LINEAGE])
    .where('id', '=', id);
}

/**
 * The key `id` and the keys that minted it, up the `parent_id` chain: from `depth` on (1: the key itself, 2: the
 * keys above it), nearest first, or root first when they are to be locked (the order every mint locks in).
 */
export function ancestors(db: Builder, id: string, depth: 1 | 2) {
  return db
    .withRecursive('chain', (chain) =>
      chain
        .selectFrom('api_keys')
        .select((eb) => ['id', 'parent_id', eb.lit(1).as('depth')])
        .where('id', '=', id)
        .unionAll((step) =>
          step
            .selectFrom('api_keys as up')
            .innerJoin('chain', 'chain.parent_id', 'up.id')
            .select((eb) => ['up.id', 'up.parent_id', eb(eb.ref('chain.depth'), '+', eb.lit(1)).as('depth')])
            .where('chain.depth', '<', MAX_DEPTH),
        ),
    )
    .selectFrom('api_keys as k')
    .innerJoin('chain', 'chain.id', 'k.id')
    .select(LINEAGE.map((name) => `k.${name}` as const))
    .where('chain.depth', '>=', depth)
    .orderBy('chain.depth', depth === 2 ? 'desc' : 'asc');
}

/**
 * Every key minted under `id`, however deep (not `id` itself), nearest first; `live`: those not revoked, the walk
 * stopping at a revoked key (every key under it is revoked too), so a tenant's revoked keys cost its count nothing.
 */
export function descendants(db: Builder, id: string, alias = 'k', live = false) {
  return db
    .withRecursive('tree', (tree) =>
      tree
        .selectFrom('api_keys')
        .select((eb) => ['id', eb.lit(1).as('depth')])
        .where('parent_id', '=', id)
        .$if(live, (first) => first.where('revoked_at', 'is', null))
        .unionAll((step) =>
          step
            .selectFrom('api_keys as down')
            .innerJoin('tree', 'tree.id', 'down.parent_id')
            .select((eb) => ['down.id', eb(eb.ref('tree.depth'), '+', eb.lit(1)).as('depth')])
            .where('tree.depth', '<', MAX_DEPTH)
            .$if(live, (next) => next.where('down.revoked_at', 'is', null)),
        ),
    )
    .selectFrom(`api_keys as ${alias}`)
    .innerJoin('tree', 'tree.id', `${alias}.id`)
    .select(`${alias}.id`)
    .orderBy('tree.depth')
    .orderBy(`${alias}.id`);
}

import { readableJson } from '../storage/engine-sql.ts';
import { column, defineSchema, type TableSpec } from '../storage/schema.ts';
import type { ExperimentCell, ExperimentHeader } from './experiment.ts';

/**
 * Experiments' four tables: headers, versions, inputs and cells (the last three keyed by experiment id and their
 * own id), so that two replicas adding to one experiment never overwrite each other. Each row keeps its object as
 * JSON text (`body`), exactly as written (key order included); the columns beside it are copies of the fields the
 * queries filter, order and sum on. Ids and times are ordered text: pages, part order and staleness follow one byte
 * order in every engine.
 */
const part = (name: string): TableSpec => ({
  name,
  columns: {
    experiment_id: column.key({ notNull: true }),
    id: column.key({ notNull: true }),
    body: column.json({ notNull: true }),
  },
  primaryKey: ['experiment_id', 'id'],
  indexes: [],
});

/** Cells stored before `spent_usd` and `held_usd` are filled from their bodies. */
const fromBody = (field: string) => ({
  sqlite: `json_extract(body, '$.${field}')`,
  postgres: `(${readableJson('body')} ->> '${field}')::float8`,
});
const reusedFrom = {
  sqlite: "json_extract(body, '$.reused_from')",
  postgres: `${readableJson('body')} ->> 'reused_from'`,
};

const money = (set: (kind: 'sqlite' | 'postgres') => string) =>
  column.real({
    notNull: true,
    default: 0,
    backfill: { sqlite: { set: set('sqlite'), where: 'json_valid(body)' }, postgres: { set: set('postgres') } },
  });

export const EXPERIMENTS_SCHEMA = defineSchema({
  name: 'experiments',
  // 2: each cell's spend and hold in columns, so that a budget's sums never read a body.
  version: 2,
  tables: [
    {
      name: 'experiments',
      columns: {
        id: column.key({ notNull: true }),
        agent_id: column.text({ notNull: true }),
        author: column.text(),
        created_at: column.key({ notNull: true }),
        body: column.json({ notNull: true }),
      },
      primaryKey: ['id'],
      indexes: [{ suffix: 'by_agent', columns: ['agent_id', 'id'] }],
    },
    part('experiment_versions'),
    part('experiment_inputs'),
    {
      name: 'experiment_cells',
      columns: {
        experiment_id: column.key({ notNull: true }),
        id: column.key({ notNull: true }),
        key: column.text({ notNull: true }),
        status: column.text({ notNull: true }),
        updated_at: column.key({ notNull: true }),
        body: column.json({ notNull: true }),
        spent_usd: money(
          (kind) => `CASE WHEN ${reusedFrom[kind]} IS NULL THEN coalesce(${fromBody('cost_usd')[kind]}, 0) ELSE 0 END`,
        ),
        held_usd: money((kind) => `coalesce(${fromBody('held_usd')[kind]}, 0)`),
      },
      primaryKey: ['experiment_id', 'id'],
      indexes: [
        // Reuse: a completed cell by its key, in one indexed lookup.
        { suffix: 'by_key', columns: ['key', 'updated_at'], where: "status = 'completed'" },
        // A budget's and a waiting `get`'s questions, answered from the index alone.
        { suffix: 'by_state', columns: ['experiment_id', 'status', 'updated_at', 'held_usd', 'spent_usd'] },
      ],
    },
  ],
});

export type PartTable = 'experiment_versions' | 'experiment_inputs';

export function headerRow(header: ExperimentHeader) {
  const { id, agent_id, author, created_at } = header;
  return { id, agent_id, author, created_at, body: JSON.stringify(header) };
}

export function partRow(experimentId: string, part: { id: string }) {
  return { experiment_id: experimentId, id: part.id, body: JSON.stringify(part) };
}

/** `spent_usd`: its cost unless reused; `held_usd`: its hold while in flight. */
export function cellRow(experimentId: string, cell: ExperimentCell) {
  return {
    experiment_id: experimentId,
    id: cell.id,
    key: cell.key,
    status: cell.status,
    updated_at: cell.updated_at,
    body: JSON.stringify(cell),
    spent_usd: cell.reused_from === null ? (cell.cost_usd ?? 0) : 0,
    held_usd: cell.held_usd ?? 0,
  };
}

export function bodyOf<T>(row: { body: unknown }): T {
  return JSON.parse(String(row.body)) as T;
}

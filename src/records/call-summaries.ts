import type { Queries, RunOptions } from '../storage/engine.ts';
import { atMost, epochMs } from '../storage/engine-sql.ts';
import type { Builder } from '../storage/kysely.ts';
import type { AgentSummary, CallTiming, DailyCostQuery, DailyCostRow, WorkflowTimeline } from './call-store.ts';
import {
  compareAgentSummaries,
  compareDailyCostRows,
  dailyCostWindow,
  summarizeWorkflow,
  timelineOf,
} from './call-store-queries.ts';
import { WORKFLOW_COLUMN } from './calls-schema.ts';
import { roundUsd } from './compute-cost.ts';

/**
 * The call store's summaries as aggregates of the `calls` table, the same query on every engine: counts and sums
 * come back as numbers (PostgreSQL's as text, hence `Number`), costs rounded alike.
 */

// biome-ignore lint/suspicious/noExplicitAny: aggregates of any engine, read through `Number`.
type Totals = Record<string, any>;

/** Cost per UTC day and workflow over the window, oldest day first. */
export async function dailyCostRows(on: Queries, query: DailyCostQuery, options: RunOptions): Promise<DailyCostRow[]> {
  const { since, until } = dailyCostWindow(query);
  const day = (eb: Totals) => eb.fn('substr', [eb.ref('created_at'), eb.lit(1), eb.lit(10)]);
  const select = (db: Builder) => {
    const inWindow = db
      .selectFrom('calls')
      .select((eb) => [
        day(eb).as('day'),
        WORKFLOW_COLUMN,
        eb.fn.countAll().as('calls'),
        eb.fn.coalesce(eb.fn.sum('cost_usd'), eb.lit(0)).as('cost_usd'),
        eb.fn.countAll().filterWhere('cost_usd', 'is', null).as('unpriced_calls'),
      ])
      .where('created_at', '>=', since)
      .where('created_at', '<', until);
    const workflow = query[WORKFLOW_COLUMN];
    const chosen = workflow === undefined ? inWindow : inWindow.where(WORKFLOW_COLUMN, '=', workflow);
    return chosen.groupBy([day as never, WORKFLOW_COLUMN]);
  };
  const { rows } = await on.run<Totals>(select, {}, options);
  return rows
    .map((row) => ({
      day: String(row.day),
      [WORKFLOW_COLUMN]: row[WORKFLOW_COLUMN] as string | null,
      calls: Number(row.calls),
      cost_usd: roundUsd(Number(row.cost_usd)),
      unpriced_calls: Number(row.unpriced_calls),
    }))
    .sort(compareDailyCostRows) as DailyCostRow[];
}

/** Totals per agent, highest cost first. */
export async function agentSummaries(on: Queries, options: RunOptions): Promise<AgentSummary[]> {
  const select = (db: Builder) =>
    db
      .selectFrom('calls')
      .select((eb) => [
        'agent_id',
        eb.fn.countAll().as('calls'),
        eb.fn.countAll().filterWhere('status', '=', 'error').as('errors'),
        eb.fn.sum('prompt_tokens').as('prompt_tokens'),
        eb.fn.sum('completion_tokens').as('completion_tokens'),
        eb.fn.sum('reasoning_tokens').as('reasoning_tokens'),
        eb.fn.coalesce(eb.fn.sum('cost_usd'), eb.lit(0)).as('cost_usd'),
        eb.fn.countAll().filterWhere('cost_usd', 'is', null).as('unpriced_calls'),
        eb.fn.max('created_at').as('last_call_at'),
      ])
      .groupBy('agent_id');
  const { rows } = await on.run<Totals>(select, {}, options);
  return rows
    .map((row) => ({
      agent_id: row.agent_id as string | null,
      calls: Number(row.calls),
      errors: Number(row.errors),
      prompt_tokens: Number(row.prompt_tokens),
      completion_tokens: Number(row.completion_tokens),
      reasoning_tokens: Number(row.reasoning_tokens),
      cost_usd: roundUsd(Number(row.cost_usd)),
      unpriced_calls: Number(row.unpriced_calls),
      last_call_at: String(row.last_call_at),
    }))
    .sort(compareAgentSummaries);
}

/**
 * A trace's timeline: its first `limit` calls (given), and the totals of all of them. A trace with fewer calls is
 * summed from the calls given; a longer one by aggregates, never reading its records.
 */
export async function timelineTotals(
  on: Queries,
  traceId: string,
  calls: CallTiming[],
  limit: number,
  options: RunOptions,
): Promise<WorkflowTimeline | null> {
  const first = calls[0];
  if (!first) return null;
  if (calls.length < limit) return timelineOf(summarizeWorkflow(traceId, calls)!, limit);
  const ofTrace = (db: Builder) => db.selectFrom('calls').where('trace_id', '=', traceId);
  const cost = (eb: Totals) => eb.fn.coalesce(eb.fn.sum('cost_usd'), eb.lit(0));
  const unpriced = (eb: Totals) => eb.fn.countAll().filterWhere('cost_usd', 'is', null);
  const [agents, totals, named] = await Promise.all([
    on.run<Totals>(
      (db) =>
        ofTrace(db)
          .select((eb) => [
            'agent_id',
            eb.fn.countAll().as('calls'),
            cost(eb).as('cost_usd'),
            unpriced(eb).as('unpriced_calls'),
            eb.fn.sum('prompt_tokens').as('prompt_tokens'),
            eb.fn.sum('completion_tokens').as('completion_tokens'),
          ])
          .groupBy('agent_id')
          .orderBy((eb: Totals) => eb.fn.min('created_at'))
          .orderBy((eb: Totals) => eb.fn.min('id')),
      {},
      options,
    ),
    on.run<Totals>(
      (db) =>
        ofTrace(db).select((eb) => [
          eb.fn.countAll().as('call_count'),
          cost(eb).as('cost_usd'),
          unpriced(eb).as('unpriced_calls'),
          eb.fn.max(eb(epochMs(on.kind, eb, 'created_at'), '+', eb.ref('latency_ms'))).as('end_ms'),
        ]),
      {},
      options,
    ),
    on.run<Totals>(
      (db) =>
        ofTrace(db)
          .select(WORKFLOW_COLUMN)
          .where(WORKFLOW_COLUMN, 'is not', null)
          .orderBy('created_at')
          .orderBy('id')
          .limit(atMost(1)),
      {},
      options,
    ),
  ]);
  const total = totals.rows[0]!;
  return {
    trace_id: traceId,
    [WORKFLOW_COLUMN]: (named.rows[0]?.[WORKFLOW_COLUMN] as string | undefined) ?? null,
    calls,
    call_count: Number(total.call_count),
    agents: agents.rows.map((agent) => ({
      agent_id: agent.agent_id as string | null,
      calls: Number(agent.calls),
      cost_usd: roundUsd(Number(agent.cost_usd)),
      unpriced_calls: Number(agent.unpriced_calls),
      prompt_tokens: Number(agent.prompt_tokens),
      completion_tokens: Number(agent.completion_tokens),
    })),
    cost_usd: roundUsd(Number(total.cost_usd)),
    unpriced_calls: Number(total.unpriced_calls),
    duration_ms: Math.round(Number(total.end_ms)) - Date.parse(first.created_at),
  } as WorkflowTimeline;
}

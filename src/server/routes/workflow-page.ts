import { requireEveryCall } from '../../access/reads.ts';
import type { Gateway } from '../../gateway.ts';
import {
  type CallStore,
  RECENT_TRACE_CALLS,
  type TraceSummary,
  type WorkflowTimeline,
} from '../../records/call-store.ts';
import { timelineOf, tracesOf } from '../../records/call-store-queries.ts';
import { htmlReply } from '../page/html-reply.ts';
import { renderPage } from '../page/render-page.ts';
import type { Route } from '../router.ts';

const DAYS = 30;
const TRACES_SHOWN = 12;
/** Calls drawn in the waterfall; the totals cover every call of the trace. */
const WATERFALL_CALLS = 200;

/** `GET /[?trace_id=]`: the workflow page, from the same `gateway.calls` queries as the API. */
export function workflowPageRoutes(gateway: Gateway, mock: boolean): Route[] {
  return [
    {
      method: 'GET',
      path: /^\/$/,
      auth: 'page',
      scope: 'calls:read',
      checkHost: true,
      async handle({ request, access }) {
        // A page public to local requests has no key, and shows every call.
        if (access) requireEveryCall(access.key);
        await gateway.flush();
        const traces = await recentTraces(gateway.calls);
        const asked = request.query.get('trace_id');
        const traceId = asked ?? traces[0]?.trace_id;
        const workflow = traceId === undefined ? null : await timeline(gateway.calls, traceId);
        const body = renderPage({
          agents: await gateway.calls.agents(),
          traces,
          workflow,
          missingTraceId: asked !== null && !workflow ? asked : null,
          daily: await gateway.calls.dailyCost({ days: DAYS }),
          days: DAYS,
          mock,
        });
        return htmlReply(200, body);
      },
    },
  ];
}

/** Aggregates and columns only, where the store has them (SQLite, memory): records can be megabytes each. */
async function recentTraces(store: CallStore): Promise<TraceSummary[]> {
  if (store.recentTraces) return store.recentTraces(TRACES_SHOWN);
  return tracesOf((await store.list({ limit: RECENT_TRACE_CALLS })).data, TRACES_SHOWN);
}

async function timeline(store: CallStore, traceId: string): Promise<WorkflowTimeline | null> {
  if (store.workflowTimeline) return store.workflowTimeline(traceId, WATERFALL_CALLS);
  const summary = await store.workflow(traceId);
  return summary && timelineOf(summary, WATERFALL_CALLS);
}

import type { Gateway } from '../../gateway.ts';
import { renderPage } from '../page/render-page.ts';
import type { Route } from '../router.ts';

const DAYS = 30;
const TRACES_SHOWN = 12;

/** `GET /[?trace_id=]`: the workflow page, from the same `gateway.calls` queries as the API. */
export function workflowPageRoutes(gateway: Gateway, mock: boolean): Route[] {
  return [
    {
      method: 'GET',
      path: /^\/$/,
      auth: 'page',
      checkHost: true,
      async handle({ request }) {
        await gateway.flush();
        const recent = await gateway.calls.list({ limit: 500 });
        const traces = new Map<string, { trace_id: string; workflow_name: string | null; created_at: string }>();
        for (const call of recent.data) {
          if (call.trace_id !== null && !traces.has(call.trace_id)) traces.set(call.trace_id, { trace_id: call.trace_id, workflow_name: call.workflow_name, created_at: call.created_at });
        }
        const asked = request.query.get('trace_id');
        const traceId = asked ?? traces.keys().next().value;
        const workflow = traceId === undefined ? null : await gateway.calls.workflow(traceId);
        const body = renderPage({
          agents: await gateway.calls.agents(),
          traces: [...traces.values()].slice(0, TRACES_SHOWN),
          workflow,
          missingTraceId: asked !== null && !workflow ? asked : null,
          daily: await gateway.calls.dailyCost({ days: DAYS }),
          days: DAYS,
          mock,
        });
        return {
          status: 200,
          body,
          headers: {
            'content-type': 'text/html; charset=utf-8',
            // No script, no external asset: the page needs nothing but inline styles.
            'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
            'x-content-type-options': 'nosniff',
            'cache-control': 'no-store',
          },
        };
      },
    },
  ];
}

import type { AgentSummary, DailyCostRow, TraceSummary, WorkflowTimeline } from '../../records/call-store.ts';
import { html, SafeHtml, urlComponent } from './html.ts';
import { dailyCostChart, formatUsd, waterfallChart } from './svg-charts.ts';

export interface PageData {
  agents: AgentSummary[];
  /** Recent traces, newest first, for the picker. */
  traces: TraceSummary[];
  workflow: WorkflowTimeline | null;
  /** The trace asked for with `?trace_id=`, when it has no calls. */
  missingTraceId: string | null;
  daily: DailyCostRow[];
  days: number;
  mock: boolean;
}

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #111827; background: #f9fafb; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.badge { background: #fde68a; color: #78350f; border-radius: 4px; padding: 1px 6px; font-size: 12px; margin-left: 8px; }
table { border-collapse: collapse; background: #fff; }
th, td { padding: 4px 12px; border-bottom: 1px solid #e5e7eb; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
svg { background: #fff; border: 1px solid #e5e7eb; display: block; max-width: 100%; height: auto; }
svg .label { font-size: 12px; fill: #111827; } svg .value { font-size: 11px; fill: #4b5563; }
svg .axis { stroke: #9ca3af; }
svg rect.error { stroke: #dc2626; stroke-width: 2; }
.traces a { margin-right: 12px; } .muted { color: #6b7280; }
`;

/** The stylesheet is a constant of ours, not data: the one string inserted without escaping. */
const STYLE_HTML = new SafeHtml(STYLE);

/**
 * The workflow page: agents, one workflow as a waterfall, and daily cost. Server-rendered, no script, no external
 * asset.
 */
export function renderPage(data: PageData): string {
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switchyard · workflows</title>
<style>${STYLE_HTML}</style>
</head>
<body>
<h1>Switchyard${data.mock ? html`<span class="badge">simulator</span>` : ''}</h1>
<p class="muted">Calls recorded by this server. Reload to refresh. · <a href="/experiments">Experiments</a></p>
<h2>Agents</h2>
${agentsTable(data.agents)}
<h2>Workflow</h2>
${workflowSection(data)}
<h2>Cost per day (last ${data.days} days, UTC)</h2>
${
  data.daily.length > 0
    ? dailyCostChart(data.daily, data.days)
    : html`<p class="muted">No cost recorded in this window.</p>`
}
</body>
</html>`;
  return page.value;
}

function agentsTable(agents: AgentSummary[]): SafeHtml {
  if (agents.length === 0) return html`<p class="muted">No calls yet. Send one to POST /v1/chat/completions.</p>`;
  const rows = agents.map(
    (agent) => html`<tr><td>${agent.agent_id ?? '(no agent)'}</td>
      <td class="num">${agent.calls}</td><td class="num">${agent.errors}</td>
      <td class="num">${agent.prompt_tokens + agent.completion_tokens}</td>
      <td class="num">$${formatUsd(agent.cost_usd)}</td><td>${agent.last_call_at}</td></tr>`,
  );
  return html`<table class="agents"><thead><tr><th>Agent</th><th class="num">Calls</th><th class="num">Errors</th>
<th class="num">Tokens</th><th class="num">Cost</th><th>Last call</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

function workflowSection(data: PageData): SafeHtml {
  const picker = data.traces.length > 0 ? html`<p class="traces">Recent traces: ${data.traces.map(traceLink)}</p>` : '';
  if (data.missingTraceId !== null) return html`${picker}<p>No call has the trace_id “${data.missingTraceId}”.</p>`;
  const workflow = data.workflow;
  if (!workflow) return html`${picker}<p class="muted">No workflow yet: calls with metadata.trace_id appear here.</p>`;
  const agents = workflow.agents.map(
    (agent) =>
      html`<tr><td>${agent.agent_id ?? '(no agent)'}</td><td class="num">${agent.calls}</td>
        <td class="num">$${formatUsd(agent.cost_usd)}</td></tr>`,
  );
  return html`${picker}
<p><strong>${workflow.workflow_name ?? '(no workflow name)'}</strong> · trace <code>${workflow.trace_id}</code> ·
${workflow.call_count} calls${drawnNote(workflow)} ·
${Math.round(workflow.duration_ms)} ms · $${formatUsd(workflow.cost_usd)}</p>
${waterfallChart(workflow)}
<table class="workflow-agents"><thead><tr><th>Agent</th><th class="num">Calls</th><th class="num">Cost</th></tr></thead>
<tbody>${agents}</tbody></table>`;
}

function traceLink(trace: TraceSummary): SafeHtml {
  const label = `${trace.workflow_name ? `${trace.workflow_name} · ` : ''}${trace.trace_id}`;
  return html`<a href="/?trace_id=${urlComponent(trace.trace_id)}">${label}</a>`;
}

function drawnNote(workflow: WorkflowTimeline): string {
  return workflow.call_count > workflow.calls.length ? ` (the first ${workflow.calls.length} drawn)` : '';
}

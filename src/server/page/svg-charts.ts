import type { DailyCostRow, WorkflowTimeline } from '../../records/call-store.ts';
import { html, type SafeHtml } from './html.ts';

const PALETTE = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626'];

/** A stable colour per name, so an agent keeps its colour across charts. */
function colourFor(name: string | null, names: ReadonlyArray<string | null>): string {
  return PALETTE[Math.max(0, names.indexOf(name)) % PALETTE.length]!;
}

/** One row per call, in start order: a bar from its start offset, as long as its latency. */
export function waterfallChart(workflow: WorkflowTimeline): SafeHtml {
  const width = 960;
  const labelWidth = 260;
  const rowHeight = 26;
  const plotWidth = width - labelWidth - 70;
  const start = Date.parse(workflow.calls[0]?.created_at ?? '');
  const span = Math.max(workflow.duration_ms, 1);
  const agents = workflow.agents.map((agent) => agent.agent_id);
  const height = workflow.calls.length * rowHeight + 30;
  const rows = workflow.calls.map((call, index) => {
    const offset = Date.parse(call.created_at) - start;
    const x = labelWidth + (offset / span) * plotWidth;
    const barWidth = Math.max(2, (call.latency_ms / span) * plotWidth);
    const y = index * rowHeight + 4;
    const via = call.dialect === 'chat' ? '' : ` · ${call.dialect}`;
    const label = `${call.agent_id ?? '(no agent)'} · ${call.model ?? call.requested_model}${via}`;
    const cost = call.cost_usd === null ? 'price unknown' : `$${call.cost_usd}`;
    const failed = call.status === 'error' ? ' (error)' : '';
    const tip = `${label}: +${offset} ms, ${Math.round(call.latency_ms)} ms, ${cost}${failed}`;
    return html`<g>
      <text x="4" y="${y + 16}" class="label">${truncate(label, 38)}</text>
      <rect class="bar${call.status === 'error' ? ' error' : ''}" x="${x.toFixed(1)}" y="${y}"
        width="${barWidth.toFixed(1)}" height="${rowHeight - 8}" rx="3" fill="${colourFor(call.agent_id, agents)}">
        <title>${tip}</title></rect>
      <text x="${(x + barWidth + 6).toFixed(1)}" y="${y + 15}" class="value">${Math.round(call.latency_ms)} ms</text>
    </g>`;
  });
  const axisY = workflow.calls.length * rowHeight + 14;
  return html`<svg class="waterfall" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img"
    aria-label="Waterfall of the workflow's calls">
    ${rows}
    <line x1="${labelWidth}" x2="${labelWidth + plotWidth}" y1="${axisY - 8}" y2="${axisY - 8}" class="axis" />
    <text x="${labelWidth}" y="${axisY + 8}" class="value">0 ms</text>
    <text x="${labelWidth + plotWidth}" y="${axisY + 8}" class="value" text-anchor="end">${Math.round(span)} ms</text>
  </svg>`;
}

/** Cost per UTC day over the window, one stacked bar per day, one colour per workflow_name. */
export function dailyCostChart(rows: ReadonlyArray<DailyCostRow>, days: number, now = new Date()): SafeHtml {
  const width = 960;
  const height = 240;
  const left = 70;
  const bottom = 30;
  const plotTop = 28; // below the legend
  const plotHeight = height - bottom - plotTop;
  const baseline = plotTop + plotHeight;
  const dayList = Array.from({ length: days }, (_, index) =>
    new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1 - index)))
      .toISOString()
      .slice(0, 10),
  );
  const workflows = [...new Set(rows.map((row) => row.workflow_name))];
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(row.day, (totals.get(row.day) ?? 0) + row.cost_usd);
  const max = Math.max(...totals.values(), 0) || 1;
  const slot = (width - left - 10) / days;
  const bars = dayList.flatMap((day, index) => {
    let top = baseline;
    return rows
      .filter((row) => row.day === day)
      .map((row) => {
        const barHeight = Math.max(1, (row.cost_usd / max) * plotHeight);
        top -= barHeight;
        const tip = `${day} · ${row.workflow_name ?? '(no workflow)'}: $${row.cost_usd} in ${row.calls} calls`;
        return html`<rect class="cost-bar" x="${(left + index * slot + 2).toFixed(1)}" y="${top.toFixed(1)}"
          width="${Math.max(1, slot - 4).toFixed(1)}" height="${barHeight.toFixed(1)}"
          fill="${colourFor(row.workflow_name, workflows)}"><title>${tip}</title></rect>`;
      });
  });
  const ticks = [0, 6, 12, 18, 24, 29]
    .filter((index) => index < days)
    .map(
      (index) =>
        html`<text x="${(left + index * slot + slot / 2).toFixed(1)}" y="${height - 10}" class="value"
          text-anchor="middle">${dayList[index]!.slice(5)}</text>`,
    );
  const legend = workflows.map(
    (name, index) =>
      html`<g><rect x="${left + index * 170}" y="0" width="10" height="10" fill="${colourFor(name, workflows)}" />
        <text x="${left + index * 170 + 14}" y="9" class="value">${truncate(name ?? '(no workflow)', 24)}</text></g>`,
  );
  return html`<svg class="daily-cost" viewBox="0 0 ${width} ${height + 10}" width="${width}" height="${height + 10}"
    role="img" aria-label="Cost per day and workflow">
    ${legend}
    <line x1="${left}" x2="${width - 10}" y1="${baseline}" y2="${baseline}" class="axis" />
    <text x="${left - 6}" y="${plotTop + 8}" class="value" text-anchor="end">$${formatUsd(max)}</text>
    <text x="${left - 6}" y="${baseline}" class="value" text-anchor="end">$0</text>
    ${bars}
    ${ticks}
  </svg>`;
}

export function formatUsd(value: number): string {
  return value >= 1 ? value.toFixed(2) : value.toPrecision(3).replace(/\.?0+$/, '');
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

import {
  cellId,
  type Experiment,
  type ExperimentAnnotationSummary,
  type ExperimentCell,
  type ExperimentInput,
  type ExperimentList,
  type ExperimentVersion,
  type VersionSummary,
} from '../../experiments/experiment.ts';
import { html, SafeHtml, urlComponent } from './html.ts';
import { formatUsd } from './svg-charts.ts';

export interface ExperimentPageOptions {
  /** The server answers from the simulator (a badge says so). */
  mock?: boolean;
}

/** A cell's text output is cut past this many characters (with an ellipsis): one answer cannot flood the page. */
export const MAX_OUTPUT_CHARS = 2_000;
/** A structured output shows at most this many fields, each value cut past `MAX_FIELD_CHARS`. */
export const MAX_FIELDS = 60;
export const MAX_FIELD_CHARS = 200;
const MAX_LABEL_CHARS = 120;

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #111827; background: #f9fafb; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.badge { background: #fde68a; color: #78350f; border-radius: 4px; padding: 1px 6px; font-size: 12px; margin-left: 8px; }
table { border-collapse: collapse; background: #fff; }
th, td { padding: 6px 12px; border: 1px solid #e5e7eb; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: #6b7280; } nav a { margin-right: 12px; }
.matrix td.cell { min-width: 220px; max-width: 420px; }
.output { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; font: 12px/1.4 ui-monospace, monospace; }
ul.fields { list-style: none; padding: 0; margin: 4px 0; font: 12px/1.4 ui-monospace, monospace; }
ul.fields li { overflow-wrap: anywhere; padding: 1px 4px; }
ul.fields li.differs { background: #fef3c7; border-left: 3px solid #d97706; }
.status { font-size: 12px; border-radius: 4px; padding: 0 6px; background: #e5e7eb; }
.status-completed { background: #d1fae5; color: #065f46; } .status-failed { background: #fee2e2; color: #991b1b; }
.status-skipped { background: #fde68a; color: #78350f; }
.valid { color: #065f46; } .invalid { color: #991b1b; } .error { color: #991b1b; }
.metrics { font-size: 12px; } ul.annotations { margin: 4px 0; padding-left: 18px; font-size: 12px; }
tr.totals td { background: #f3f4f6; font-size: 12px; }
`;

/** The stylesheet is a constant of ours, not data: the one string inserted without escaping. */
const STYLE_HTML = new SafeHtml(STYLE);

function page(title: string, heading: string, mock: boolean, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${STYLE_HTML}</style>
</head>
<body>
<nav><a href="/">Workflows</a><a href="/experiments">Experiments</a></nav>
<h1>${heading}${mock ? html`<span class="badge">simulator</span>` : ''}</h1>
${body}
</body>
</html>`.value;
}

/**
 * One experiment: versions as columns, inputs as rows, each cell's output (a structured output as its fields, those
 * that differ between versions marked), cost, latency and annotations, and a totals row per version.
 * Server-rendered, no script, no external asset.
 */
export function renderExperimentPage(experiment: Experiment, options: ExperimentPageOptions = {}): string {
  const e = experiment;
  const budget = e.budget_usd === null ? 'no budget' : `budget $${formatUsd(e.budget_usd)}`;
  const body = html`<p class="experiment-meta">Agent <strong>${e.agent_id}</strong> · <code>${e.id}</code> ·
<span class="status status-${e.status}">${e.status}</span> · spent $${formatUsd(e.spent_usd)} (${budget})</p>
${e.description ? html`<p>${cut(e.description, MAX_OUTPUT_CHARS)}</p>` : ''}
<p class="muted">${e.versions.length} versions × ${e.inputs.length} inputs · created ${e.created_at}. Reload to
refresh.</p>
${matrix(e)}`;
  return page(`Switchyard · ${cut(e.title, MAX_LABEL_CHARS)}`, e.title, options.mock ?? false, body);
}

function matrix(e: Experiment): SafeHtml {
  if (e.versions.length === 0 || e.inputs.length === 0)
    return html`<p class="muted">Add versions and inputs to see results here.</p>`;
  const cells = new Map(e.cells.map((cell) => [cell.id, cell]));
  const notes = new Map<string, ExperimentAnnotationSummary[]>();
  for (const note of e.annotations) notes.set(note.cell_id, [...(notes.get(note.cell_id) ?? []), note]);
  const differing = new Map(e.comparisons.map((comparison) => [comparison.input_id, new Set(comparison.differing)]));
  const rows = e.inputs.map(
    (input) =>
      html`<tr class="input-row"><th scope="row">${inputHeader(input)}</th>${e.versions.map((version) => {
        const id = cellId(version.id, input.id);
        return cellHtml(cells.get(id), notes.get(id) ?? [], differing.get(input.id) ?? new Set());
      })}</tr>`,
  );
  const summaries = new Map(e.summaries.map((summary) => [summary.version_id, summary]));
  return html`<table class="matrix"><thead><tr><th>Input</th>${e.versions.map(versionHeader)}</tr></thead>
<tbody>${rows}</tbody>
<tfoot><tr class="totals"><th scope="row">Totals</th>${e.versions.map((v) => totals(summaries.get(v.id)))}</tr></tfoot>
</table>`;
}

function versionHeader(version: ExperimentVersion): SafeHtml {
  const deployment =
    version.deployment_id === null ? '' : html`<br><span class="muted">${version.deployment_id}</span>`;
  return html`<th class="version" scope="col"><span class="version-label">${cut(version.label, MAX_LABEL_CHARS)}</span>
<br><code>${version.content.model}</code>${deployment}</th>`;
}

function inputHeader(input: ExperimentInput): SafeHtml {
  const source = input.source_call_id === null ? '' : html`<br><span class="muted">from ${input.source_call_id}</span>`;
  return html`<span class="input-label">${cut(inputLabel(input), MAX_LABEL_CHARS)}</span>${source}`;
}

/** The input's label, else its variables (`name=value, …`), else its last message's text, else its id. */
function inputLabel(input: ExperimentInput): string {
  if (input.label) return input.label;
  const variables = Object.entries(input.variables ?? {});
  if (variables.length > 0) return variables.map(([name, value]) => `${name}=${valueText(value)}`).join(', ');
  const last = input.messages.at(-1);
  if (last && typeof last.content === 'string') return last.content;
  return input.id;
}

function cellHtml(cell: ExperimentCell | undefined, notes: ExperimentAnnotationSummary[], differ: Set<string>) {
  if (!cell) return html`<td class="cell"><span class="status">not run</span></td>`;
  const valid =
    cell.valid === null
      ? ''
      : cell.valid
        ? html` <span class="valid">✓ valid</span>`
        : html` <span class="invalid">✗ invalid</span>`;
  const reused = cell.reused_from === null ? '' : html` <span class="muted">reused</span>`;
  const error = cell.error
    ? html`<p class="error">${cell.error.code ?? cell.error.type}: ${cut(cell.error.message, MAX_FIELD_CHARS)}</p>`
    : '';
  const cost = cell.cost_usd === null ? '' : `$${formatUsd(cell.cost_usd)}`;
  const latency = cell.latency_ms === null ? '' : `${Math.round(cell.latency_ms)} ms`;
  const metrics = [cost, latency].filter(Boolean).join(' · ');
  return html`<td class="cell status-cell-${cell.status}" data-cell="${cell.id}">
<span class="status status-${cell.status}">${cell.status}</span>${valid}${reused}
${output(cell, differ)}${error}${metrics ? html`<div class="metrics muted">${metrics}</div>` : ''}
${annotations(notes)}</td>`;
}

function output(cell: ExperimentCell, differ: Set<string>): SafeHtml | string {
  if (isObject(cell.parsed)) {
    const fields = flatten(cell.parsed);
    const shown = fields.slice(0, MAX_FIELDS).map(([path, value]) => {
      const differs = differ.has(path) || [...differ].some((other) => other.startsWith(`${path}.`));
      return differs
        ? html`<li class="field differs" title="differs between versions">≠ <code>${path}</code> = ${value}</li>`
        : html`<li class="field"><code>${path}</code> = ${value}</li>`;
    });
    const more = fields.length > MAX_FIELDS ? html`<li class="muted">… ${fields.length - MAX_FIELDS} more</li>` : '';
    return html`<ul class="fields">${shown}${more}</ul>`;
  }
  if (cell.output === null) return '';
  return html`<div class="output">${cut(cell.output, MAX_OUTPUT_CHARS)}</div>`;
}

/** A structured output's leaves as dotted paths (`items.0.price`) with their values as JSON text, cut. */
function flatten(value: unknown, prefix = '', out: Array<[string, string]> = []): Array<[string, string]> {
  if (out.length > MAX_FIELDS) return out;
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : isObject(value)
      ? Object.entries(value)
      : null;
  if (entries === null || entries.length === 0) {
    out.push([prefix || '(root)', cut(JSON.stringify(value) ?? String(value), MAX_FIELD_CHARS)]);
    return out;
  }
  for (const [name, item] of entries) flatten(item, prefix ? `${prefix}.${name}` : name, out);
  return out;
}

function annotations(notes: ExperimentAnnotationSummary[]): SafeHtml | string {
  if (notes.length === 0) return '';
  const items = notes.map((note) => {
    const metric = note.metric ? html`<strong>${note.metric.name}=${note.metric.value}</strong> ` : '';
    const path = note.key_path === null ? '' : html` <span class="muted">(${note.key_path})</span>`;
    const text = note.text === null ? '' : cut(note.text, MAX_FIELD_CHARS);
    return html`<li class="annotation">${metric}${text}${path}</li>`;
  });
  return html`<ul class="annotations">${items}</ul>`;
}

function totals(summary: VersionSummary | undefined): SafeHtml {
  if (!summary) return html`<td class="num">—</td>`;
  const { p50, p90, p99 } = summary.latency_ms;
  const ms = (value: number | null) => (value === null ? '—' : `${Math.round(value)}`);
  const unpriced = summary.unpriced > 0 ? ` (${summary.unpriced} unpriced)` : '';
  const skipped = summary.skipped > 0 ? ` · ${summary.skipped} skipped (budget)` : '';
  const valid = summary.valid === null ? '' : html`<br>valid ${summary.valid}/${summary.completed}`;
  const metrics = Object.entries(summary.metrics).map(
    ([name, metric]) => html`<br>${name} avg ${round(metric.average)} (n=${metric.count})`,
  );
  return html`<td class="totals-cell">${summary.completed} completed · ${summary.failed} failed ·
${summary.pending} pending${skipped}<br>$${formatUsd(summary.cost_usd)}${unpriced}<br>
p50/p90/p99 ${ms(p50)}/${ms(p90)}/${ms(p99)} ms<br>
${summary.prompt_tokens} + ${summary.completion_tokens} tokens${valid}${metrics}</td>`;
}

/** The experiments a caller reads, newest first, each a link to its page. */
export function renderExperimentList(list: ExperimentList, options: ExperimentPageOptions = {}): string {
  const rows = list.data.map(
    (e) => html`<tr><td><a href="/experiments/${urlComponent(e.id)}">${cut(e.title, MAX_LABEL_CHARS)}</a></td>
<td>${e.agent_id}</td><td><code>${e.id}</code></td>
<td class="num">${e.budget_usd === null ? '—' : `$${formatUsd(e.budget_usd)}`}</td><td>${e.created_at}</td></tr>`,
  );
  const table =
    rows.length === 0
      ? html`<p class="muted">No experiments yet: create one with gateway.experiments.create.</p>`
      : html`<table class="experiments"><thead><tr><th>Title</th><th>Agent</th><th>Id</th><th class="num">Budget</th>
<th>Created</th></tr></thead><tbody>${rows}</tbody></table>`;
  const next =
    list.next_cursor === null
      ? ''
      : html`<p><a href="/experiments?cursor=${urlComponent(list.next_cursor)}">Older experiments</a></p>`;
  return page('Switchyard · experiments', 'Experiments', options.mock ?? false, html`${table}${next}`);
}

/** The page's 404: no experiment with this id that the caller reads. */
export function renderExperimentNotFound(id: string, options: ExperimentPageOptions = {}): string {
  return page(
    'Switchyard · experiment not found',
    'Experiment not found',
    options.mock ?? false,
    html`<p>No experiment “${cut(id, MAX_LABEL_CHARS)}” that this key reads.</p>
<p><a href="/experiments">All experiments</a></p>`,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? String(value);
}

function round(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}

function cut(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

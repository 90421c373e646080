import type { Annotation } from '../annotations/annotation.ts';
import { roundUsd } from '../records/compute-cost.ts';
import type {
  ExperimentAnnotationSummary,
  ExperimentCell,
  ExperimentInput,
  ExperimentVersion,
  FieldComparison,
  VersionSummary,
} from './experiment.ts';

/** Paths compared per input: a structured output with more leaves is compared on its first ones. */
const MAX_COMPARED_PATHS = 500;

/** Totals of each version over its cells, with the averages of the metrics annotated on them. */
export function versionSummaries(
  versions: ExperimentVersion[],
  inputs: ExperimentInput[],
  cells: ExperimentCell[],
  annotations: ExperimentAnnotationSummary[],
): VersionSummary[] {
  const byVersion = new Map<string, ExperimentCell[]>();
  for (const cell of cells) {
    const own = byVersion.get(cell.version_id);
    if (own) own.push(cell);
    else byVersion.set(cell.version_id, [cell]);
  }
  return versions.map((version) => {
    const own = byVersion.get(version.id) ?? [];
    const completed = own.filter((cell) => cell.status === 'completed');
    const latencies = completed.flatMap((cell) => (cell.latency_ms === null ? [] : [cell.latency_ms]));
    const hasSchema = version.content.output_schema !== undefined;
    const metrics: VersionSummary['metrics'] = {};
    const cellIds = new Set(own.map((cell) => cell.id));
    for (const { cell_id: cellId, metric } of annotations) {
      if (!metric || !cellIds.has(cellId)) continue;
      const entry = (metrics[metric.name] ??= { average: 0, count: 0 });
      entry.average += (metric.value - entry.average) / ++entry.count;
    }
    const failed = own.filter((cell) => cell.status === 'failed').length;
    const skipped = own.filter((cell) => cell.status === 'skipped').length;
    return {
      version_id: version.id,
      cells: inputs.length,
      completed: completed.length,
      failed,
      skipped,
      pending: inputs.length - completed.length - failed - skipped,
      valid: hasSchema ? completed.filter((cell) => cell.valid === true).length : null,
      cost_usd: roundUsd(own.reduce((sum, cell) => sum + (cell.cost_usd ?? 0), 0)),
      unpriced: completed.filter((cell) => cell.cost_usd === null).length,
      latency_ms: { p50: percentile(latencies, 50), p90: percentile(latencies, 90), p99: percentile(latencies, 99) },
      prompt_tokens: completed.reduce((sum, cell) => sum + (cell.usage?.prompt_tokens ?? 0), 0),
      completion_tokens: completed.reduce((sum, cell) => sum + (cell.usage?.completion_tokens ?? 0), 0),
      metrics,
    };
  });
}

/** What the experiment paid: every cell that called (a reused cell cost nothing again). */
export function spentOf(cells: ExperimentCell[]): number {
  return roundUsd(cells.reduce((sum, cell) => sum + (cell.reused_from === null ? (cell.cost_usd ?? 0) : 0), 0));
}

/** Nearest-rank percentile; `null` of nothing. */
export function percentile(values: number[], rank: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((rank / 100) * sorted.length) - 1)]!;
}

/**
 * For each input answered with a structured output by two versions or more: the leaf paths whose values differ
 * (or that some outputs lack) and those equal in all.
 */
export function fieldComparisons(inputs: ExperimentInput[], cells: ExperimentCell[]): FieldComparison[] {
  const comparisons: FieldComparison[] = [];
  // Grouped once: 500 inputs × 10,000 cells would otherwise be five million looks on every read.
  const byInput = new Map<string, ExperimentCell[]>();
  for (const cell of cells) {
    if (cell.status !== 'completed' || !isObject(cell.parsed)) continue;
    const answered = byInput.get(cell.input_id);
    if (answered) answered.push(cell);
    else byInput.set(cell.input_id, [cell]);
  }
  for (const input of inputs) {
    const outputs = (byInput.get(input.id) ?? []).map((cell) => leaves(cell.parsed));
    if (outputs.length < 2) continue;
    const paths = new Set(outputs.flatMap((output) => [...output.keys()]));
    const differing: string[] = [];
    const same: string[] = [];
    for (const path of [...paths].slice(0, MAX_COMPARED_PATHS)) {
      const first = outputs[0]!.get(path);
      const equal = first !== undefined && outputs.every((output) => output.get(path) === first);
      (equal ? same : differing).push(path);
    }
    comparisons.push({ input_id: input.id, differing, same });
  }
  return comparisons;
}

/** Dotted leaf paths (`items.0.price`) → the leaf's JSON text; an empty object or array is a leaf. */
export function leaves(value: unknown, prefix = '', into = new Map<string, string>()): Map<string, string> {
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : isObject(value)
      ? Object.entries(value)
      : [];
  if (entries.length === 0 || into.size >= MAX_COMPARED_PATHS) {
    if (prefix !== '') into.set(prefix, JSON.stringify(value));
    return into;
  }
  for (const [key, item] of entries) leaves(item, prefix === '' ? key : `${prefix}.${key}`, into);
  return into;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An annotation on a cell, as the experiment shows it. */
export function cellAnnotation(annotation: Annotation): ExperimentAnnotationSummary | undefined {
  const { target } = annotation;
  if (!('cell_id' in target)) return undefined;
  const { id, key_path, text, metric, created_at } = annotation;
  return { id, cell_id: target.cell_id, key_path, text, metric, created_at };
}

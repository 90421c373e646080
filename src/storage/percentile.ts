/**
 * The exact percentile of a group's values, interpolated between the two nearest ranks as PostgreSQL's
 * `percentile_cont` is: the SQLite engine registers it as an aggregate function (`switchyard_percentile(value,
 * fraction)`), the memory engine runs the same code, and PostgreSQL runs its own.
 */
export const PERCENTILE_FUNCTION = 'switchyard_percentile';

export function percentile(values: number[], fraction: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const position = fraction * (sorted.length - 1);
  const low = Math.floor(position);
  return sorted[low]! + ((sorted[low + 1] ?? sorted[low]!) - sorted[low]!) * (position - low);
}

/** The aggregate's state between rows: the group's values (NULLs left out, as SQL aggregates do) and the fraction. */
export interface PercentileState {
  values: number[];
  fraction: number;
}

export function percentileStep(state: PercentileState, value: unknown, fraction: unknown): PercentileState {
  if (typeof value === 'number' || typeof value === 'bigint') state.values.push(Number(value));
  state.fraction = Number(fraction);
  return state;
}

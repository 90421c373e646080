import {
  type Experiment,
  type ExperimentCell,
  emptyCell,
  type VersionSummary,
} from '../../src/experiments/experiment.ts';

export const HOSTILE = '<img src=x onerror=alert(1)>';

const version = (id: string, label: string, model: string, deployment: string | null) => ({
  id,
  label,
  deployment_id: deployment,
  content: { model, messages: [{ role: 'user' as const, content: 'Quote {{item}}' }] },
  key: `key-${id}`,
  created_at: '2026-11-25T10:00:00Z',
});

const cell = (versionId: string, inputId: string, fields: Partial<ExperimentCell>): ExperimentCell => ({
  ...emptyCell(
    {
      id: `${versionId}.${inputId}`,
      experiment_id: 'exp_0193a',
      version_id: versionId,
      input_id: inputId,
      status: 'completed',
      key: `key-${versionId}-${inputId}`,
    },
    '2026-11-25T10:01:00Z',
  ),
  call_id: `call_${versionId}_${inputId}`,
  ...fields,
});

const structured = (parsed: unknown, cost: number, latency: number): Partial<ExperimentCell> => ({
  output: JSON.stringify(parsed),
  parsed,
  valid: true,
  cost_usd: cost,
  latency_ms: latency,
});

const summary = (versionId: string, fields: Partial<VersionSummary>): VersionSummary => ({
  version_id: versionId,
  cells: 2,
  completed: 2,
  failed: 0,
  skipped: 0,
  pending: 0,
  valid: 2,
  cost_usd: 0,
  unpriced: 0,
  latency_ms: { p50: null, p90: null, p99: null },
  prompt_tokens: 0,
  completion_tokens: 0,
  metrics: {},
  ...fields,
});

/** 2 versions × 2 inputs: structured outputs differing in `quote.price`, an annotation, a failed cell. */
export function experimentFixture(): Experiment {
  return {
    object: 'experiment',
    id: 'exp_0193a',
    agent_id: 'quoter',
    title: 'Quote prompt v2',
    description: null,
    budget_usd: 1,
    author: null,
    created_at: '2026-11-25T10:00:00Z',
    status: 'completed',
    spent_usd: 0.0042,
    versions: [
      version('ver_a', 'baseline', 'gpt-4o-latest', 'quoter:production#3'),
      version('ver_b', HOSTILE, 'claude-sonnet-4-5', null),
    ],
    inputs: [
      {
        id: 'inp_1',
        label: null,
        variables: { item: 'lamp' },
        messages: [],
        source_call_id: 'call_src1',
        key: 'k1',
        created_at: '2026-11-25T10:00:00Z',
      },
      {
        id: 'inp_2',
        label: 'chair order',
        variables: { item: 'chair' },
        messages: [],
        source_call_id: null,
        key: 'k2',
        created_at: '2026-11-25T10:00:00Z',
      },
    ],
    cells: [
      cell('ver_a', 'inp_1', structured({ quote: { item: 'lamp', price: 12 }, currency: 'EUR' }, 0.0011, 420)),
      cell('ver_a', 'inp_2', structured({ quote: { item: 'chair', price: 40 }, currency: 'EUR' }, 0.0012, 380)),
      cell('ver_b', 'inp_1', structured({ quote: { item: 'lamp', price: 15 }, currency: 'EUR' }, 0.0019, 610)),
      cell('ver_b', 'inp_2', {
        status: 'failed',
        cost_usd: null,
        error: { type: 'api_error', code: 'upstream_timeout', message: 'The provider did not answer in time.' },
      }),
    ],
    summaries: [
      summary('ver_a', {
        cost_usd: 0.0023,
        latency_ms: { p50: 380, p90: 420, p99: 420 },
        prompt_tokens: 120,
        completion_tokens: 40,
        metrics: { accuracy: { average: 0.75, count: 2 } },
      }),
      summary('ver_b', {
        completed: 1,
        failed: 1,
        valid: 1,
        cost_usd: 0.0019,
        latency_ms: { p50: 610, p90: 610, p99: 610 },
        prompt_tokens: 60,
        completion_tokens: 25,
      }),
    ],
    comparisons: [
      { input_id: 'inp_1', differing: ['quote.price'], same: ['quote.item', 'currency'] },
      { input_id: 'inp_2', differing: [], same: ['quote.item', 'quote.price', 'currency'] },
    ],
    annotations: [
      {
        id: 'ann_1',
        cell_id: 'ver_b.inp_1',
        key_path: 'quote.price',
        text: 'too expensive',
        metric: { name: 'accuracy', value: 0.5 },
        created_at: '2026-11-25T10:02:00Z',
      },
    ],
  };
}

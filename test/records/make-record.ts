import type { CallRecord } from '../../src/records/index.ts';
import { uuidv7, ZERO_USAGE } from '../../src/records/index.ts';

/** A complete, successful record at `createdAt`, with the fields a test cares about overridden. */
export function makeRecord(overrides: Partial<CallRecord> & { createdAt?: number } = {}): CallRecord {
  const { createdAt = Date.UTC(2026, 0, 15, 12), ...fields } = overrides;
  return {
    id: uuidv7(createdAt),
    dialect: 'chat',
    created_at: new Date(createdAt).toISOString(),
    agent_id: 'planner',
    trace_id: 'trace-1',
    workflow_name: 'research',
    metadata: {},
    deployment_id: null,
    requested_model: 'gpt-4o-latest',
    model: 'gpt-4o-2024-11-20',
    provider: 'openai',
    provider_model: 'gpt-4o-2024-11-20',
    attempts: [{ provider: 'openai', model: 'gpt-4o-2024-11-20', outcome: 'ok', duration_ms: 120 }],
    input_messages: [{ role: 'user', content: 'secret question' }],
    input: null,
    output: { content: 'secret answer', reasoning_content: null, tool_calls: [], refusal: null, finish_reason: 'stop' },
    usage: { ...ZERO_USAGE, prompt_tokens: 100, completion_tokens: 20 },
    cost_usd: 0.00045,
    cost: { input: 0.00025, cache_read: 0, cache_write: 0, output: 0.0002, reasoning: 0 },
    latency_ms: 150,
    time_to_first_token_ms: null,
    stream: false,
    status: 'ok',
    error: null,
    warnings: [],
    ...fields,
  };
}

/** `count` records spread over agents, traces, workflows and days, with some failures, in random arrival order. */
export function makeRecords(count: number, startMs = Date.UTC(2026, 0, 1)): CallRecord[] {
  const records: CallRecord[] = [];
  for (let index = 0; index < count; index++) {
    // Several records share a millisecond, so the id tie-break is exercised.
    const createdAt = startMs + Math.floor(index / 3) * 1_555_000; // 5000 records span about 30 days
    const failed = index % 17 === 0;
    records.push(
      makeRecord({
        createdAt,
        agent_id: index % 11 === 0 ? null : `agent-${index % 4}`,
        dialect: (['chat', 'chat', 'responses', 'messages', 'chat', 'embeddings'] as const)[index % 6]!,
        trace_id: `trace-${index % 50}`,
        workflow_name: index % 13 === 0 ? null : `workflow-${index % 3}`,
        usage: {
          prompt_tokens: 100 + index,
          completion_tokens: 10 + (index % 7),
          reasoning_tokens: index % 5,
          cached_tokens: index % 9,
          cache_write_tokens: 0,
          cache_write_1h_tokens: 0,
        },
        // Some calls went to a model without a known price: their cost is unknown, not $0.
        ...costFields(failed ? 0 : index % 23 === 5 ? null : Math.round((0.000123 + index * 1e-7) * 1e9) / 1e9),
        latency_ms: 50 + (index % 400),
        status: failed ? 'error' : 'ok',
        error: failed ? { type: 'api_error', code: 'server_error', status: 500, message: 'upstream failed' } : null,
        output: failed
          ? null
          : {
              content: `answer ${index}`,
              reasoning_content: null,
              tool_calls: [],
              refusal: null,
              finish_reason: 'stop',
            },
      }),
    );
  }
  return shuffled(records);
}

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  let seed = 42;
  for (let index = copy.length - 1; index > 0; index--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const other = seed % (index + 1);
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

function costFields(usd: number | null): Pick<CallRecord, 'cost_usd' | 'cost'> {
  if (usd === null) return { cost_usd: null, cost: null };
  return { cost_usd: usd, cost: { input: usd, cache_read: 0, cache_write: 0, output: 0, reasoning: 0 } };
}

import { InvalidRequestError } from '../errors.ts';
import { breather } from '../internal/breathing.ts';
import { utf8Length } from '../internal/bytes.ts';
import { type CallQueryScope, MAX_QUERY_LIMIT } from '../records/call-query.ts';
import type { CallRecord } from '../records/call-record.ts';
import type { CallStore } from '../records/call-store.ts';
import { DEFAULT_SAMPLE, type ExperimentHeader, type ExperimentInput, MAX_INPUT_BYTES } from './experiment.ts';

/** Where inputs are copied from: the call records, as far as the caller reads them. */
export interface InputSource {
  calls: CallStore;
  scope: () => Promise<CallQueryScope>;
  flush: () => Promise<void>;
}

/**
 * What the samples of one request may read of recorded calls in all: past it, they end with what they have. A
 * call is read only when its whole record is at most `MAX_SAMPLED_RECORD_BYTES` (the size is read, not the record),
 * and copied only when what is copied is at most `MAX_INPUT_BYTES`; a larger call is passed over.
 */
export const SAMPLE_READ_BYTES = 32 * 1024 * 1024;
export const MAX_SAMPLED_RECORD_BYTES = 4 * MAX_INPUT_BYTES;

/** What one request has left to read, shared by its samples. */
export interface SampleBudget {
  bytes: number;
}

export function sampleBudget(): SampleBudget {
  return { bytes: SAMPLE_READ_BYTES };
}

export type CopiedInput = Pick<ExperimentInput, 'variables' | 'messages'>;

/**
 * The inputs of the newest calls passing the filter (and the caller's scope), of the experiment's agent unless it
 * says, at most `limit` distinct ones, each with the call it came from. The query reads columns only; then each
 * call is read alone, and only when its record is small (`getBounded`), the event loop given a turn between.
 */
export async function sampledInputs(
  header: ExperimentHeader,
  sample: { filter?: Record<string, unknown>; limit?: number },
  source: InputSource,
  budget: SampleBudget,
  distinct: (copied: CopiedInput) => boolean,
): Promise<Array<{ callId: string; copied: CopiedInput }>> {
  const { calls } = source;
  if (!calls.queryCalls || !calls.get)
    throw new InvalidRequestError('inputs: this call store cannot be queried; give inputs directly.', 'inputs');
  await source.flush();
  const limit = sample.limit ?? DEFAULT_SAMPLE;
  const filter = { agent_id: header.agent_id, ...sample.filter };
  // Experiments' own calls are left out unless the filter asks for them (by `metadata.experiment_id`).
  const ownCallsToo = (sample.filter?.metadata as Record<string, string> | undefined)?.experiment_id !== undefined;
  // Newest first (the default order); rows are columns only.
  const rows = await calls.queryCalls({ filter, limit: MAX_QUERY_LIMIT }, { scope: await source.scope() });
  const read = async (id: string): Promise<CallRecord | 'too_large' | null> => {
    if (calls.getBounded) return calls.getBounded(id, MAX_SAMPLED_RECORD_BYTES);
    const record = await calls.get!(id);
    return record && jsonBytes(record) > MAX_SAMPLED_RECORD_BYTES ? 'too_large' : record;
  };
  const breathe = breather();
  const taken: Array<{ callId: string; copied: CopiedInput }> = [];
  for (const row of rows.data) {
    if (taken.length === limit || budget.bytes <= 0) break;
    await breathe();
    const record = await read(String(row.id));
    if (!record || record === 'too_large') continue;
    budget.bytes -= jsonBytes(record);
    if (!ownCallsToo && record.metadata?.experiment_id !== undefined) continue;
    const copied = inputOfCall(record);
    if (!copied || jsonBytes(copied) > MAX_INPUT_BYTES || !distinct(copied)) continue;
    taken.push({ callId: String(row.id), copied });
  }
  return taken;
}

/** The size of a value as JSON, in bytes (UTF-8). */
export function jsonBytes(value: unknown): number {
  return value === null || value === undefined ? 0 : utf8Length(JSON.stringify(value));
}

/**
 * What a recorded call was asked: its `input` variables when it had them (a deployment's or a template's call);
 * otherwise its messages after the system and developer ones (a version brings its own instructions). A redacted
 * or empty call gives nothing.
 */
function inputOfCall(record: CallRecord): CopiedInput | undefined {
  const { input } = record;
  if (typeof input === 'object' && input !== null && !Array.isArray(input))
    return { variables: input as Record<string, unknown>, messages: [] };
  if (typeof input === 'string') return undefined;
  const messages = (record.input_messages ?? []).filter((m) => m.role !== 'system' && m.role !== 'developer');
  return messages.length > 0 ? { variables: null, messages } : undefined;
}

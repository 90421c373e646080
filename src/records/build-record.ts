import { jsonCopy } from '../internal/json-copy.ts';
import { redactSecrets } from '../internal/redact.ts';
import type { Attempt, ChatCompletionMessageParam, CompletionChoice, SwitchyardResponseInfo } from '../types.ts';
import { redactRecord, type CallRecord, type RecordError, type RecordOutput, type RecordToolCall } from './call-record.ts';
import { computeTotalCost, normalizeUsage, sumUsage, type BilledUsage, type TokenPricing, type UsageLike } from './compute-cost.ts';
import type { StreamSummary } from './stream-recorder.ts';
import { uuidv7 } from './uuidv7.ts';

/** Metadata keys that get their own record field; the others stay in `metadata`. */
const PROMOTED_METADATA = new Set(['agent_id', 'trace_id', 'workflow_name']);

/** Everything the gateway knows about one finished call (succeeded, failed, or a stream that ended). */
export interface CallRecordInput {
  /** The call id already handed to the caller (`switchyard.call_id`); default a new UUIDv7 from `startedAt`. */
  id?: string;
  /** The request as the caller wrote it. */
  request: {
    model: string;
    messages?: ChatCompletionMessageParam[] | undefined;
    input?: unknown;
    metadata?: Record<string, string> | null | undefined;
    stream?: boolean | null | undefined;
  };
  /** Epoch milliseconds when `createCompletion` was entered. */
  startedAt: number;
  /** Epoch milliseconds when the answer (or the stream, or the error) was complete; default now. */
  endedAt?: number;
  /** The routing facts of the response or stream; absent when the call failed. */
  info?: SwitchyardResponseInfo;
  /** The catalog id, when the call failed after the model was resolved. */
  model?: string;
  /** The agent the gateway attributed the call to (deployment, `metadata.agent_id`, or the model prefix). */
  agentId?: string;
  deploymentId?: string;
  /** A non-streamed answer. */
  response?: { choices: CompletionChoice[]; usage?: UsageLike | null | undefined };
  /** A stream's answer, from `StreamRecorder.summary()`. */
  stream?: StreamSummary;
  /** Every completion the call paid for, with its offering's price. Default: the answer's usage at `pricing`. */
  billed?: BilledUsage[];
  /** Price of the offering that answered, used when `billed` is not given. */
  pricing?: TokenPricing;
  error?: unknown;
  /** Replace message contents, input and answer text by `"[redacted]"`. */
  redact?: boolean;
}

/** The call record for one call. Copies what it keeps: callers often push onto their `messages` array afterwards. */
export function buildCallRecord(input: CallRecordInput): CallRecord {
  const { request, info } = input;
  const endedAt = input.endedAt ?? Date.now();
  const metadata = request.metadata ?? {};
  const otherMetadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) if (!PROMOTED_METADATA.has(key)) otherMetadata[key] = value;

  const answerUsage = input.response?.usage ?? input.stream?.usage ?? null;
  const billed = input.billed ?? [{ usage: answerUsage, pricing: input.pricing }];
  const error = input.error === undefined ? null : recordErrorFrom(input.error);
  const attempts = info?.attempts ?? attemptsOf(input.error);
  const firstTokenAt = input.stream?.firstTokenAt ?? null;

  const record: CallRecord = {
    id: input.id ?? uuidv7(input.startedAt),
    created_at: new Date(input.startedAt).toISOString(),
    agent_id: input.agentId ?? info?.agent_id ?? metadata.agent_id ?? null,
    trace_id: metadata.trace_id ?? null,
    workflow_name: metadata.workflow_name ?? null,
    metadata: otherMetadata,
    deployment_id: input.deploymentId ?? null,
    requested_model: request.model,
    model: info?.model ?? input.model ?? null,
    provider: info?.provider ?? null,
    provider_model: info?.provider_model ?? null,
    attempts: attempts.map((attempt) => (attempt.message === undefined ? { ...attempt } : { ...attempt, message: redactSecrets(attempt.message, []) })),
    input_messages: request.messages ? (jsonClone(request.messages) as ChatCompletionMessageParam[] | null) : null,
    input: request.input === undefined ? null : jsonClone(request.input),
    output: input.response ? outputFromChoice(input.response.choices[0]) : (input.stream?.output ?? null),
    usage: input.billed ? sumUsage(billed.map((part) => part.usage)) : normalizeUsage(answerUsage),
    cost_usd: computeTotalCost(billed),
    latency_ms: Math.max(0, endedAt - input.startedAt),
    time_to_first_token_ms: firstTokenAt === null ? null : Math.max(0, firstTokenAt - input.startedAt),
    stream: request.stream === true,
    status: error ? 'error' : 'ok',
    error,
    warnings: (info?.warnings ?? []).map((warning) => ({ ...warning })),
  };
  return input.redact ? redactRecord(record) : record;
}

/** `{ type, code, status, message }` of anything thrown; credentials are scrubbed from the message. */
export function recordErrorFrom(error: unknown): RecordError {
  if (error instanceof Error) {
    // Duck-typed rather than `instanceof SwitchyardError`, so an error from a second copy of the package still maps.
    const fields = error as Error & { type?: unknown; code?: unknown; status?: unknown };
    return {
      type: typeof fields.type === 'string' ? fields.type : error.name,
      code: typeof fields.code === 'string' ? fields.code : null,
      status: typeof fields.status === 'number' ? fields.status : null,
      message: redactSecrets(error.message, []),
    };
  }
  return { type: 'unknown_error', code: null, status: null, message: redactSecrets(String(error), []) };
}

function attemptsOf(error: unknown): Attempt[] {
  const attempts = (error as { attempts?: unknown } | null | undefined)?.attempts;
  return Array.isArray(attempts) ? (attempts as Attempt[]) : [];
}

function outputFromChoice(choice: CompletionChoice | undefined): RecordOutput | null {
  if (!choice) return null;
  const message = choice.message;
  const toolCalls: RecordToolCall[] = (message.tool_calls ?? []).map((call) =>
    call.type === 'function'
      ? { id: call.id, type: call.type, function: { name: call.function.name, arguments: call.function.arguments } }
      : { id: call.id, type: call.type, function: { name: call.custom.name, arguments: call.custom.input } },
  );
  return {
    content: message.content ?? null,
    reasoning_content: message.reasoning_content ?? null,
    tool_calls: toolCalls,
    refusal: message.refusal ?? null,
    finish_reason: choice.finish_reason ?? null,
  };
}

/**
 * A deep copy with JSON's rules: what every sink stores anyway, so a record reads the same from memory and from
 * disk, and a value JSON cannot hold (a BigInt, a cycle) cannot make a sink fail later.
 */
function jsonClone(value: unknown): unknown {
  try {
    return jsonCopy(value);
  } catch {
    return '[unserializable]';
  }
}

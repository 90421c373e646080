import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterThisTurn } from '../internal/runtime.ts';
import { buildRecord, type CallRecordInput, recordErrorFrom } from './build-record.ts';
import {
  byAttribution,
  type CallRecord,
  type Dialect,
  type MediaRecord,
  type SensitiveDataRecord,
} from './call-record.ts';
import { type CallStore, isCallStore } from './call-store.ts';
import { type BilledUsage, ZERO_USAGE } from './compute-cost.ts';
import type { JournalSegment } from './record-journal.ts';
import { RecordQueue, type RecordQueueOptions, type RecordQueueStats } from './record-queue.ts';
import type { RecordSink } from './sink.ts';
import { MemorySink } from './sinks/memory-sink.ts';

export type RecordOptions = { [Option in keyof RecordQueueOptions]?: RecordQueueOptions[Option] | undefined } & {
  redact?: boolean | undefined;
  /**
   * Longest text a record keeps per field, in characters: each message content, template value, answer,
   * reasoning and tool-call arguments. Longer text is cut with a marker saying how much (default 1,000,000).
   */
  maxTextLength?: number | undefined;
  /**
   * Other processes write the same store too (serve's workers, replicas on one PostgreSQL), each a call's record
   * within this many ms of its end: a record looked up by id (`find`) and not there yet is looked for until then.
   */
  sharedWithinMs?: number | undefined;
};

/** What the record of one call needs besides the request and outcome: handed over once, when the call ends. */
export interface CallContext {
  id: string;
  /** The API the call came through (default `chat`). */
  dialect?: Dialect;
  startedAt: number;
  /** Every completion paid for (retries for structured output included), with its offering's price. */
  billed: BilledUsage[];
  model?: string | undefined;
  agentId?: string | undefined;
  deploymentId?: string | undefined;
  metadata?: Record<string, string> | undefined;
  /** The messages as sent: templated, or the deployment's expanded prompt. */
  messages?: ChatCompletionMessageParam[] | undefined;
  /** The sensitive-data mode applied and the counts found (never a value). */
  sensitiveData?: SensitiveDataRecord | undefined;
  /** A media call's modality and billed units. */
  media?: MediaRecord | undefined;
}

/**
 * The request as the caller wrote it, as far as a record keeps it: any dialect's (a chat completion, an embedding),
 * and possibly one that failed validation, so every field is read defensively.
 */
export interface RecordedRequest {
  readonly model?: unknown;
  readonly messages?: unknown;
  readonly input?: unknown;
  readonly metadata?: unknown;
  readonly stream?: unknown;
}

type Outcome = Pick<CallRecordInput, 'info' | 'response' | 'stream' | 'error'>;

export interface CallRecorder {
  readonly calls: CallStore;
  readonly stats: RecordQueueStats;
  /**
   * Queues the call's record; it is built on the next turn of the event loop, after the caller has its answer (at
   * once when the queue has a journal).
   */
  record(request: RecordedRequest, call: CallContext, outcome: Outcome): void;
  /**
   * With a journal: settles once every record queued so far is on disk (group commit: one write for the records of
   * an event-loop turn, at its end). An answer waits for it before it leaves. `undefined` when nothing waits.
   */
  durable(): Promise<void> | undefined;
  /**
   * A call that will take a while (a stream): its record as it stands now (`outcome`: what the record should say
   * if the process dies before the call ends), kept on disk by the journal until the returned function is called,
   * after `record`. Nothing without a journal.
   */
  opened(request: RecordedRequest, call: CallContext, outcome: Outcome): () => void;
  flush(): Promise<void>;
  /**
   * A call's record by id that `readable` accepts, once this process's records so far are stored; where other
   * processes write the store too (`sharedWithinMs`), one not there yet is looked for again until another process's
   * record would be. A record `readable` refuses is looked for as long: the caller cannot tell it from none.
   */
  find(
    id: string,
    readable: (record: CallRecord) => Promise<boolean>,
    signal?: AbortSignal,
  ): Promise<CallRecord | null>;
  close(): Promise<void>;
}

/** How often a record another process is writing is looked for again (`find`). */
const LOOK_AGAIN_MS = 100;

/** The stats of a gateway that records nothing. */
const NOTHING_RECORDED: RecordQueueStats = Object.freeze({
  queued: 0,
  written: 0,
  dropped: 0,
  failed: 0,
  build_failed: 0,
  last_loss_at: null,
  journal_writes: 0,
});

/**
 * The gateway's recording: a bounded queue to the sinks (a queryable memory sink unless told otherwise), or nothing.
 */
export function createCallRecorder(
  options: false | RecordOptions | undefined,
  defaultSink: () => RecordSink = () => new MemorySink(),
): CallRecorder {
  // `sinks: undefined` is no sinks given: the default sink, not none.
  const recordOptions = options === false ? undefined : { ...options, sinks: options?.sinks ?? [defaultSink()] };
  const queue = recordOptions ? new RecordQueue(recordOptions as RecordQueueOptions) : undefined;
  const redact = recordOptions?.redact ?? false;
  const maxTextLength = recordOptions?.maxTextLength;
  // Records are built one event-loop turn after each call: wait for that turn, then for the queue.
  const nextTurn = () => new Promise<void>((resolve) => afterThisTurn(resolve));

  const calls = (recordOptions?.sinks?.find(isCallStore) as CallStore | undefined) ?? noCallStore;
  const flush = async () => {
    await nextTurn();
    await queue?.flush();
  };

  return {
    calls,
    get stats() {
      return queue?.stats ?? NOTHING_RECORDED;
    },
    record(request, call, outcome) {
      if (!queue) return;
      const sent = sentOf(request, call);
      const endedAt = Date.now();
      const build = () => {
        // Anything thrown here would end the process (in its own tick) or fail an answered call (journaled).
        // buildRecord isolates each part; this is the last line, for a failure outside the parts.
        try {
          const { record, incomplete } = buildRecord(inputOf(sent, call, endedAt, outcome, redact, maxTextLength));
          queue.enqueue(record, incomplete);
        } catch (error) {
          queue.enqueue(bareRecord(call, sent.model, endedAt, outcome.error, error), true);
        }
      };
      // Journaled, the record is built at once and the answer waits for its batch to be on disk (`durable`): an
      // answered call outlives the process.
      // Otherwise it is built on the next turn, off the request path.
      if (queue.journaled) build();
      else afterThisTurn(build);
    },
    durable: () => queue?.durable(),
    opened(request, call, outcome) {
      const journal = recordOptions?.journal;
      if (!journal) return () => undefined;
      let segment: JournalSegment | undefined;
      try {
        const input = inputOf(sentOf(request, call), call, Date.now(), outcome, redact, maxTextLength);
        segment = journal.openCall(buildRecord(input).record);
      } catch {
        // The call goes on; only a process killed during it would have used this record.
      }
      return () => segment && journal.closeCall(segment);
    },
    flush,
    async find(id, readable, signal) {
      await flush();
      const get = calls.get?.bind(calls);
      if (!get) return null;
      const waitUntil = Date.now() + (recordOptions?.sharedWithinMs ?? 0);
      for (;;) {
        const found = await get(id);
        if (found && (await readable(found))) return found;
        // A caller that left is not waited for.
        if (Date.now() >= waitUntil || signal?.aborted) return null;
        await new Promise((resolve) => setTimeout(resolve, LOOK_AGAIN_MS));
      }
    },
    close: async () => {
      await nextTurn();
      await queue?.close();
    },
  };
}

type Sent = CallRecordInput['request'];

function sentOf(request: RecordedRequest, call: CallContext): Sent {
  return {
    model: typeof request?.model === 'string' ? request.model : '',
    // A shallow copy: callers often push onto their messages array right after the call.
    messages: asArray(call.messages ?? request?.messages),
    input: request?.input,
    metadata: call.metadata ?? request?.metadata,
    stream: request?.stream === true,
  };
}

function inputOf(
  sent: Sent,
  call: CallContext,
  endedAt: number,
  outcome: Outcome,
  redact: boolean,
  maxTextLength: number | undefined,
): CallRecordInput {
  return {
    id: call.id,
    ...(call.dialect ? { dialect: call.dialect } : {}),
    request: sent,
    startedAt: call.startedAt,
    endedAt,
    billed: call.billed,
    redact,
    ...(maxTextLength !== undefined ? { maxTextLength } : {}),
    ...(call.model ? { model: call.model } : {}),
    ...(call.agentId ? { agentId: call.agentId } : {}),
    ...(call.deploymentId ? { deploymentId: call.deploymentId } : {}),
    ...(call.sensitiveData ? { sensitiveData: call.sensitiveData } : {}),
    ...(call.media ? { media: call.media } : {}),
    ...outcome,
  };
}

/** What is known of a call without touching the request's contents or the answer, and why that is all. */
function bareRecord(
  call: CallContext,
  model: string,
  endedAt: number,
  callError: unknown,
  failure: unknown,
): CallRecord {
  const reason = (failure instanceof Error ? failure.message : String(failure)).slice(0, 500);
  return {
    id: call.id,
    dialect: call.dialect ?? 'chat',
    created_at: new Date(call.startedAt).toISOString(),
    ...byAttribution(() => null),
    metadata: {},
    deployment_id: null,
    requested_model: model.slice(0, 1000),
    model: call.model ?? null,
    provider: null,
    provider_model: null,
    attempts: [],
    input_messages: null,
    input: null,
    output: null,
    usage: { ...ZERO_USAGE },
    cost_usd: null,
    cost: null,
    latency_ms: Math.max(0, endedAt - call.startedAt),
    time_to_first_token_ms: null,
    stream: false,
    status: callError === undefined ? 'ok' : 'error',
    error:
      callError === undefined
        ? null
        : safely(() => recordErrorFrom(callError), { type: 'unknown_error', code: null, status: null, message: '' }),
    warnings: [
      {
        code: 'record_incomplete',
        message: `Only the call's id, times and model were recorded; building the record failed: ${reason}`,
      },
    ],
  };
}

function safely<T>(build: () => T, fallback: T): T {
  try {
    return build();
  } catch {
    return fallback;
  }
}

/** `Array.from`, not `slice`: a caller's array with a `constructor` key of its own must not throw here. */
function asArray(value: unknown): ChatCompletionMessageParam[] | undefined {
  return Array.isArray(value) ? (Array.from(value) as ChatCompletionMessageParam[]) : undefined;
}

const noCallStore: CallStore = new Proxy({} as CallStore, {
  get: () => () =>
    Promise.reject(
      new Error(
        'No call-record sink of this gateway answers queries: add a MemorySink or SqliteSink to records.sinks.',
      ),
    ),
});

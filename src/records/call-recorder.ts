import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { CompletionRequest } from '../types.ts';
import { buildCallRecord, type CallRecordInput } from './build-record.ts';
import type { CallRecord } from './call-record.ts';
import { isCallStore, type CallStore } from './call-store.ts';
import type { BilledUsage } from './compute-cost.ts';
import { RecordQueue, type RecordQueueOptions, type RecordQueueStats } from './record-queue.ts';
import { MemorySink } from './sinks/memory-sink.ts';
import { uuidv7 } from './uuidv7.ts';

export type RecordOptions = Partial<RecordQueueOptions> & { redact?: boolean };

/** What the record of one call needs, filled in as the pipeline learns it. */
export interface CallContext {
  id: string;
  startedAt: number;
  /** Every completion paid for (retries for structured output included), with its offering's price. */
  billed: BilledUsage[];
  model?: string;
  agentId?: string | undefined;
  deploymentId?: string | undefined;
  metadata?: Record<string, string> | undefined;
  /** The messages as sent: templated, or the deployment's expanded prompt. */
  messages?: ChatCompletionMessageParam[];
}

export interface CallRecorder {
  readonly calls: CallStore;
  readonly stats: RecordQueueStats;
  begin(): CallContext;
  /** Queues the call's record; it is built on the next turn of the event loop, after the caller has its answer. */
  record(request: CompletionRequest, call: CallContext, outcome: Pick<CallRecordInput, 'info' | 'response' | 'stream' | 'error'>): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** The gateway's recording: a bounded queue to the sinks (a queryable memory sink unless told otherwise), or nothing. */
export function createCallRecorder(options: false | RecordOptions | undefined): CallRecorder {
  const recordOptions = options === false ? undefined : { sinks: [new MemorySink()], ...options };
  const queue = recordOptions ? new RecordQueue(recordOptions as RecordQueueOptions) : undefined;
  const redact = recordOptions?.redact ?? false;
  // Records are built one event-loop turn after each call: wait for that turn, then for the queue.
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  return {
    calls: (recordOptions?.sinks?.find(isCallStore) as CallStore | undefined) ?? noCallStore,
    get stats() {
      return queue?.stats ?? { queued: 0, written: 0, dropped: 0, failed: 0 };
    },
    begin: () => ({ id: uuidv7(), startedAt: Date.now(), billed: [] }),
    record(request, call, outcome) {
      if (!queue) return;
      const sent = {
        model: typeof request?.model === 'string' ? request.model : '',
        // A shallow copy: callers often push onto their messages array right after the call.
        messages: asArray(call.messages ?? request?.messages),
        input: request?.input,
        metadata: call.metadata ?? request?.metadata,
        stream: request?.stream === true,
      };
      const endedAt = Date.now();
      setImmediate(() => {
        const input: CallRecordInput = {
          id: call.id, request: sent, startedAt: call.startedAt, endedAt, billed: call.billed, redact,
          ...(call.model ? { model: call.model } : {}),
          ...(call.agentId ? { agentId: call.agentId } : {}),
          ...(call.deploymentId ? { deploymentId: call.deploymentId } : {}),
          ...outcome,
        };
        let record: CallRecord;
        try {
          record = buildCallRecord(input);
        } catch {
          // Contents that cannot be copied as JSON (too deep, a BigInt) must not lose the call: keep everything else.
          record = buildCallRecord({ ...input, request: { ...sent, messages: undefined, input: '[not serializable]' } });
        }
        queue.enqueue(record);
      });
    },
    flush: async () => {
      await nextTurn();
      await queue?.flush();
    },
    close: async () => {
      await nextTurn();
      await queue?.close();
    },
  };
}

function asArray<T>(value: T[] | undefined): T[] | undefined {
  return Array.isArray(value) ? value.slice() : undefined;
}

const noCallStore: CallStore = new Proxy({} as CallStore, {
  get: () => () => Promise.reject(new Error('No call-record sink of this gateway answers queries: add a MemorySink or SqliteSink to records.sinks.')),
});


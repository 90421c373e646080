import type { SlotCharge, SlotHold } from '../../budgets/spend-store.ts';

/**
 * What the primary of `serve --workers` and its workers say to each other over the cluster's IPC channel: the
 * counters' operations (each taking its bucket or slot and its capacity, as Redis's), the start's notices, and the
 * order to stop. Every message carries `switchyard`, so Node's own cluster messages are told apart.
 */

/** One counter operation, as `TokenBuckets` and `SpendStore` declare them. */
export type CounterCall =
  | { op: 'take'; bucket: string; capacity: number; perMs: number }
  | { op: 'peek'; bucket: string; capacity: number; perMs: number }
  | { op: 'spent'; slot: string }
  | { op: 'reserve'; id: string; holds: SlotHold[]; holdMs: number }
  | { op: 'settle'; id: string; released: SlotHold[]; charges: SlotCharge[] };

/** One question, `seq` pairing it with its answer. */
export interface CounterQuestion {
  seq: number;
  call: CounterCall;
}

/**
 * A worker asks: every question of one event-loop turn in one message (a request's in-flight hold is asked on every
 * request, so one message a turn instead of one a question spares both processes a write, a read and a parse each).
 */
export interface CounterAsk {
  switchyard: 'counters';
  questions: CounterQuestion[];
}

/** One question's answer: the operation's value, or its error's name and message. */
export interface CounterReply {
  seq: number;
  value?: unknown;
  error?: { name: string; message: string };
}

/** The primary answers every question of an ask in one message, in the order asked. */
export interface CounterAnswer {
  switchyard: 'counters';
  replies: CounterReply[];
}

/** A start's log line, written once for the cluster by the primary. */
export interface StartNotice {
  level: 'info' | 'warn';
  msg: string;
  fields?: Record<string, unknown> | undefined;
}

/** A worker listens, and says what the start's log would have said. */
export interface WorkerReady {
  switchyard: 'ready';
  url: string;
  notices: StartNotice[];
}

/** The primary orders a worker to stop: drain (`now: false`), or abort what is in flight (`now: true`). */
export interface StopOrder {
  switchyard: 'stop';
  now: boolean;
}

export type WorkerMessage = CounterAsk | WorkerReady;
export type PrimaryMessage = CounterAnswer | StopOrder;

/** Whether `message` is one of ours, of the kind `kind`. */
export function isMessage<T extends { switchyard: string }>(message: unknown, kind: T['switchyard']): message is T {
  return typeof message === 'object' && message !== null && (message as { switchyard?: unknown }).switchyard === kind;
}

/** The worker's number (1…n) the primary gives each worker it forks, in its environment. */
export const WORKER_ID_VARIABLE = 'SWITCHYARD_WORKER_ID';
/** The port every worker binds with SO_REUSEPORT (`--port 0` resolved once, by the primary), in its environment. */
export const WORKER_PORT_VARIABLE = 'SWITCHYARD_WORKER_PORT';

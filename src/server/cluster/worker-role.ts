import {
  isMessage,
  type StartNotice,
  type StopOrder,
  WORKER_ID_VARIABLE,
  WORKER_PORT_VARIABLE,
  type WorkerReady,
} from './messages.ts';
import { type PrimaryChannel, WorkerCounters } from './worker-counters.ts';

/**
 * This process as a worker of `serve --workers`: its number, the primary's counters, and how it tells the primary
 * it listens (the primary writes the start's summary once for all of them).
 */
export interface ClusterWorker {
  /** 1…n: the primary's number for this worker (a replacement takes the number of the worker it replaces). */
  id: number;
  /**
   * The port this worker binds a socket of its own on, with SO_REUSEPORT (the kernel spreads connections over the
   * workers' sockets); absent where the system has no SO_REUSEPORT: the workers share the primary's socket.
   */
  ownSocketPort: number | undefined;
  counters: WorkerCounters;
  /** Said once the server listens: where, and the start's log lines, written by the primary. */
  ready(url: string, notices: StartNotice[]): void;
  /** Called with each order of the primary to stop (`now`: abort what is in flight), and once it is gone. */
  onStop(stop: (now: boolean) => void): void;
  /** Whether the server's socket is bound yet: before, this worker has taken no request, so nothing to drain. */
  readonly listens: boolean;
  /** Said by the server once its socket is bound. */
  listened(): void;
}

/** The worker side of the cluster, over the IPC channel of a process the primary forked. */
export function joinCluster(channel: PrimaryChannel = process as unknown as PrimaryChannel): ClusterWorker {
  const id = Number(process.env[WORKER_ID_VARIABLE] ?? 1);
  const port = process.env[WORKER_PORT_VARIABLE];
  // Heard from the start: an order that comes while the server is still starting is obeyed once it has started.
  let ordered: boolean | undefined;
  let obey: ((now: boolean) => void) | undefined;
  let listens = false;
  const order = (now: boolean) => {
    ordered = (ordered ?? false) || now;
    obey?.(now);
  };
  channel.on('message', (message) => {
    if (isMessage<StopOrder>(message, 'stop')) order(message.now);
  });
  // The primary gone (killed): nothing counts for this worker any more; it drains and goes too.
  channel.on('disconnect', () => order(false));
  return {
    id,
    ownSocketPort: port === undefined ? undefined : Number(port),
    counters: new WorkerCounters(channel),
    ready(url, notices) {
      const ready: WorkerReady = { switchyard: 'ready', url, notices };
      // A primary gone meanwhile is heard as the channel's `disconnect` (this worker then stops).
      if (channel.connected) channel.send(ready, () => undefined);
    },
    onStop(stop) {
      obey = stop;
      if (ordered !== undefined || !channel.connected) stop(ordered ?? false);
    },
    get listens() {
      return listens;
    },
    listened() {
      listens = true;
    },
  };
}

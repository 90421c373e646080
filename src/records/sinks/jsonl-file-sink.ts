import { lazyNodeBuiltin } from '../../internal/node-builtin.ts';
import type { CallRecord } from '../call-record.ts';
import { recordJson } from '../record-json.ts';
import type { RecordSink } from '../sink.ts';

const nodeFs = lazyNodeBuiltin('node:fs/promises', 'The JSONL file sink');
const nodePath = lazyNodeBuiltin('node:path', 'The JSONL file sink');

/** Appends each record as one JSON line to a file (created with its directories on the first write). */
export class JsonlFileSink implements RecordSink {
  readonly path: string;
  #ready: Promise<unknown> | undefined;
  /** Writes are chained so that lines of two batches never interleave, even when called without the queue. */
  #tail: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.path = path;
  }

  write(records: CallRecord[]): Promise<void> {
    if (records.length === 0) return this.#tail;
    const text = records.map((record) => `${recordJson(record)}\n`).join('');
    this.#ready ??= nodeFs()
      .mkdir(nodePath().dirname(this.path), { recursive: true })
      .catch((error: unknown) => {
        this.#ready = undefined; // Tried again with the next batch: the directory may be creatable by then.
        throw error;
      });
    const written = this.#tail.then(async () => {
      await this.#ready;
      await nodeFs().appendFile(this.path, text, 'utf8');
    });
    // A failed batch is reported to this caller; the next batch still gets its turn.
    this.#tail = written.catch(() => undefined);
    return written;
  }

  async close(): Promise<void> {
    await this.#tail;
  }
}

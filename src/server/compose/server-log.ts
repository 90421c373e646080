import { isoTime } from '../../internal/iso-time.ts';
import { redactSecrets, redactUrlCredentials } from '../../internal/redact.ts';
import { bufferedLines } from '../buffered-lines.ts';

type Fields = Record<string, unknown>;

/** `serve`'s log: JSON lines, each with its time and level. */
export interface ServerLog {
  info(msg: string, fields?: object): void;
  warn(msg: string, fields?: object): void;
  error(msg: string, fields?: object): void;
  /** The line written when the log ends (the server's last: `stopped`, with its counts). */
  atEnd(line: () => void): void;
  /** Writes the last line and whatever is still gathered; the log is done. */
  end(): void;
}

/**
 * The caller's `log` when given, else JSON lines on stderr gathered over one event-loop turn; those still gathered
 * when the process exits without `close()` (a second Ctrl-C, `process.exit`) are written then. `every` goes in each
 * line (a worker's number).
 */
export function openServerLog(write: ((line: Fields) => void) | undefined, every: Fields = {}): ServerLog {
  const stderr = write ? undefined : bufferedLines(process.stderr);
  const line = write ?? stderr!.write;
  if (stderr) process.on('exit', stderr.flush);
  const at =
    (level: string) =>
    (msg: string, fields: object = {}) =>
      line({ time: isoTime(Date.now()), level, msg, ...every, ...fields });
  let last: (() => void) | undefined;
  return {
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    atEnd: (lastLine) => void (last = lastLine),
    end: () => {
      last?.();
      if (!stderr) return;
      stderr.flush();
      process.off('exit', stderr.flush);
    },
  };
}

/** A part that failed to close: said, and the teardown goes on. */
export function closeFailed(log: ServerLog): (part: string, error: unknown) => void {
  return (part, error) =>
    log.warn('could not close a part of the server', {
      part,
      error: redactUrlCredentials(redactSecrets(messageOf(error), [])),
    });
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

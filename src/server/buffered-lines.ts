/** Log lines for `serve`: written in batches, one system call per event-loop turn. */

/**
 * JSON log lines gathered over one event-loop turn and written together: a request log line each is a system call
 * each otherwise (stderr writes are synchronous for files and pipes), which under load cost more than the lines.
 */
export function bufferedLines(stream: NodeJS.WritableStream): {
  write: (line: Record<string, unknown>) => void;
  flush: () => void;
} {
  let pending = '';
  const flush = () => {
    if (pending === '') return;
    const text = pending;
    pending = '';
    stream.write(text);
  };
  return {
    write(line) {
      if (pending === '') setImmediate(flush);
      pending += `${JSON.stringify(line)}\n`;
    },
    flush,
  };
}

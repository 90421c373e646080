import { inspect } from 'node:util';

/**
 * Pushes everything written to the console, stdout and stderr, and every process warning, into `sink` while `work`
 * runs, then restores them: the secrets suites grep what a run printed.
 */
export async function captureOutput(sink: string[], work: () => Promise<void>): Promise<void> {
  const methods = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
  const saved = methods.map((method) => console[method]);
  const [stdoutWrite, stderrWrite] = [process.stdout.write, process.stderr.write];
  const onWarning = (warning: Error) => void sink.push(`${warning.name}: ${warning.message}`);
  for (const method of methods)
    console[method] = (...args: unknown[]) =>
      void sink.push(args.map((arg) => (typeof arg === 'string' ? arg : inspect(arg, { depth: 8 }))).join(' '));
  const capture = ((chunk: unknown) => (sink.push(String(chunk)), true)) as typeof process.stdout.write;
  process.stdout.write = capture;
  process.stderr.write = capture;
  process.on('warning', onWarning);
  try {
    await work();
  } finally {
    methods.forEach((method, index) => {
      console[method] = saved[index]!;
    });
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
    process.off('warning', onWarning);
  }
}

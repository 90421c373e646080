import { nodeFloorHint } from './node-floor.ts';
import { isNode, runtimeLabel, workingDirectory } from './runtime.ts';

/**
 * Telling a failure of this process apart from a provider's. A `ReferenceError` is always ours (a name this runtime
 * does not have). A `TypeError` without a cause is ours too, unless a dependency threw it: a provider's SDK trips
 * with one over an answer of the wrong shape, which is the answer's fault. (fetch's network failures are TypeErrors
 * with the socket error as cause: not local either.)
 */
export function isLocalFault(error: unknown): error is Error {
  if (error instanceof ReferenceError) return true;
  return error instanceof TypeError && error.cause === undefined && !thrownByDependency(error);
}

/**
 * `TypeError: … (at undici/lib/dispatcher/agent.js:1)`, the runtime when it is not Node.js (`, on Bun 1.4.4`),
 * and the Node.js floor when this one is older. Only the message's first line: Bun quotes the failing source after it.
 */
export function describeLocalFault(error: unknown): string {
  const failure = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).split('\n')[0]!;
  const where = error instanceof Error ? thrownAt(error) : undefined;
  const place = [where && `at ${where}`, !isNode() && `on ${runtimeLabel()}`].filter(Boolean).join(', ');
  return `${failure}${place ? ` (${place})` : ''}.${nodeFloorHint()}`;
}

/** The first frame of the stack that is a file: `path:line:column`, without `file://`. */
function firstFileFrame(error: Error): string | undefined {
  for (const line of String(error.stack ?? '').split('\n')) {
    const frame = /^\s+at (?:.*\()?((?:file:\/\/)?\/[^()]+?|[A-Za-z]:\\[^()]+?):(\d+):\d+\)?$/.exec(line);
    if (frame) return `${frame[1]!.replace(/^file:\/\//, '')}:${frame[2]}`;
  }
  return undefined;
}

/** Where it was thrown, short and without the machine's directories: from the package's folder on, or the file. */
function thrownAt(error: Error): string | undefined {
  const frame = firstFileFrame(error);
  if (!frame) return undefined;
  const inPackage = /[\\/]node_modules[\\/](.+)$/.exec(frame)?.[1];
  if (inPackage) return inPackage.replaceAll('\\', '/');
  const cwd = `${workingDirectory()}/`;
  return frame.startsWith(cwd) ? frame.slice(cwd.length) : frame.split(/[\\/]/).at(-1);
}

/** Thrown in a package under `node_modules` other than this one (whose built files sit there once installed). */
function thrownByDependency(error: Error): boolean {
  const frame = firstFileFrame(error);
  const name =
    frame && /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/](?!.*[\\/]node_modules[\\/])/.exec(frame);
  return Boolean(name && name[1] !== 'switchyard-llm');
}

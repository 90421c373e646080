/**
 * What the JavaScript runtime is, and the few host facilities the core needs, asked for without assuming Node.js:
 * Bun and Deno set `process.versions.node` too, and workers and browsers have no `process` at all.
 */
export type RuntimeName = 'node' | 'bun' | 'deno' | 'other';

interface MaybeHosts {
  Bun?: { version?: string };
  Deno?: { version?: { deno?: string } };
  process?: { versions?: { node?: string } };
}

const hosts = globalThis as unknown as MaybeHosts;

/** The runtime this process is: checked by its own globals first, as Bun and Deno also say they are Node.js. */
export function runtimeName(): RuntimeName {
  if (hosts.Bun !== undefined) return 'bun';
  if (hosts.Deno !== undefined) return 'deno';
  if (typeof hosts.process?.versions?.node === 'string') return 'node';
  return 'other';
}

/** `Bun 1.4.4`, `Deno 2.9.6`, `Node.js v24.1.0`, or `this runtime`: for messages that name where they ran. */
export function runtimeLabel(): string {
  const name = runtimeName();
  if (name === 'bun') return `Bun ${hosts.Bun?.version ?? ''}`.trim();
  if (name === 'deno') return `Deno ${hosts.Deno?.version?.deno ?? ''}`.trim();
  if (name === 'node') return `Node.js v${hosts.process?.versions?.node}`;
  return 'this runtime';
}

/** Node.js itself (not Bun or Deno): the only runtime whose `undici` the pooled transport is built and measured on. */
export const isNode = (): boolean => runtimeName() === 'node';

type Env = Record<string, string | undefined>;

/**
 * The process environment to read settings from: `process.env` on Node.js and Bun; on Deno a view of it that reads
 * a variable not allowed (run without `--allow-env`) as unset instead of throwing; `{}` where there is no process.
 * Keys passed in code then work everywhere.
 */
export function processEnv(): Env {
  const env = (globalThis as { process?: { env?: Env } }).process?.env;
  if (!env) return {};
  return runtimeName() === 'deno' ? permissiveEnv(env) : env;
}

function permissiveEnv(env: Env): Env {
  // Over an empty object of its own: the proxy's invariants are checked against its target, which must not throw.
  const read = (name: string | symbol) => attempt(() => Reflect.get(env, name) as string | undefined, undefined);
  return new Proxy({} as Env, {
    get: (_target, name) => read(name),
    has: (_target, name) => read(name) !== undefined,
    ownKeys: () => attempt(() => Reflect.ownKeys(env), []),
    getOwnPropertyDescriptor: (_target, name) => {
      const value = read(name);
      return value === undefined ? undefined : { value, writable: true, enumerable: true, configurable: true };
    },
  });
}

/** Deno throws `NotCapable` for an environment variable it was not allowed to read: that is "not set". */
function attempt<T>(read: () => T, otherwise: T): T {
  try {
    return read();
  } catch {
    return otherwise;
  }
}

/** One environment variable, or `undefined` where there is none or it may not be read. */
export const envVariable = (name: string): string | undefined => processEnv()[name];

/**
 * Runs `task` after the current turn of the event loop (Node's `setImmediate`, else a zero timer); `unref` keeps it
 * from holding a Node.js process open.
 */
export function afterThisTurn(task: () => void, unref = false): void {
  const immediate = (globalThis as { setImmediate?: (task: () => void) => { unref?: () => void } }).setImmediate;
  const handle: unknown = immediate ? immediate(task) : setTimeout(task, 0);
  if (unref) (handle as { unref?: () => void } | undefined)?.unref?.();
}

/** The working directory where the runtime has one (for short paths in messages), else `undefined`. */
export function workingDirectory(): string | undefined {
  return attempt(() => (globalThis as { process?: { cwd?: () => string } }).process?.cwd?.(), undefined);
}

/** A process warning (`process.emitWarning` where there is one: `--no-warnings` applies), else the console. */
export function emitProcessWarning(message: string, code: string): void {
  type Emit = (text: string, options: { code: string }) => void;
  const emit = (globalThis as { process?: { emitWarning?: Emit } }).process?.emitWarning;
  if (typeof emit === 'function') emit(message, { code });
  else console.warn(`${message} (${code})`);
}

/**
 * The timer, kept from holding a Node.js process open: Node, Bun and Deno timers have `unref`, a worker's or a
 * browser's (a number) has none and needs none.
 */
export function unrefTimer<Timer>(timer: Timer): Timer {
  (timer as { unref?: () => void } | undefined)?.unref?.();
  return timer;
}

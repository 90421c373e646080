import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { redactedUrl } from '../internal/redacted-url.ts';

/**
 * What `switchyard serve` (and the commands sharing its data directory) check of their options before they start,
 * and how they explain a port they cannot take.
 */

const EXAMPLE = 'postgres://user:password@host:5432/database';

/**
 * The PostgreSQL URL of `--database` (or `SWITCHYARD_DATABASE_URL`), refused by the name it was given under when it
 * is not a URL or not PostgreSQL's: the driver would otherwise read `mysql://db/app` or a stray word as a host to
 * connect to. A malformed value is never repeated (it may hold a password); another scheme is shown without one.
 */
export function databaseUrl(
  option: string | undefined,
  env: string | undefined,
  optionName = '--database',
): string | undefined {
  const value = option ?? (env === '' ? undefined : env);
  if (value === undefined) return undefined;
  const name = option === undefined ? 'SWITCHYARD_DATABASE_URL' : optionName;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} is not a URL: give a PostgreSQL URL such as ${EXAMPLE}.`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new Error(
      `${name} "${redactedUrl(value)}" is not a PostgreSQL URL: give one such as ${EXAMPLE}, or leave it ` +
        'out for SQLite in the data directory.',
    );
  return value;
}

/**
 * The Redis URL of `--redis` (or `SWITCHYARD_REDIS_URL`, or its file), refused by the name it was given under when
 * it is not a `redis://` or `rediss://` URL: ioredis would connect to `user:pass@host:6379` all the same, while its
 * password escaped every redaction (read as a scheme, not a userinfo). A malformed value is never repeated.
 */
export function redisUrl(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (!/^rediss?:\/\//i.test(value)) {
    throw new Error(`${name} is not a redis:// or rediss:// URL: give one such as redis://:password@host:6379/0.`);
  }
  return value;
}

/**
 * The data directory (`--data`), checked before anything opens it, without creating it: a file in its place, a
 * directory this user cannot write, or one that cannot be created is said so, naming the option (not `EEXIST`, not a
 * port's privileges).
 */
export function checkDataDir(dir: string): void {
  const stats = statOrUndefined(dir);
  if (stats && !stats.isDirectory())
    throw new Error(`--data ${dir} is a file, not a directory: give a directory (it is created when missing).`);
  if (stats) {
    writable(dir, `--data ${dir}: this user cannot write in the data directory`);
    return;
  }
  // The nearest directory that exists is where it would be created.
  let parent = resolve(dir);
  let found = statOrUndefined(parent);
  while (!found && dirname(parent) !== parent) found = statOrUndefined((parent = dirname(parent)));
  if (found && !found.isDirectory()) throw new Error(`--data ${dir} cannot be created: ${parent} is a file.`);
  writable(parent, `--data ${dir} cannot be created: this user cannot write in ${parent}`);
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch (error) {
    // Missing, or under a file (ENOTDIR): the walk up finds which.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new Error(`--data ${path} cannot be read (${(error as NodeJS.ErrnoException).code}).`);
  }
}

function writable(dir: string, problem: string): void {
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new Error(`${problem} (${(error as NodeJS.ErrnoException).code}): give a directory it can write.`);
  }
}

/** A port `serve` cannot listen on, said in the terms of its options; any other error (not `listen`'s) as it is. */
export function explainListenError(error: unknown, host: string, port: number): never {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if ((error as NodeJS.ErrnoException | undefined)?.syscall !== 'listen') throw error;
  const where = `port ${port} on ${host}`;
  if (code === 'EADDRINUSE')
    throw new Error(
      `${where} is already in use: stop what listens there, or choose another port with --port <port> ` +
        '(--port 0 takes any free one).',
    );
  if (code === 'EACCES')
    throw new Error(`${where} needs privileges this process does not have: choose a port above 1023 with --port.`);
  if (code === 'EADDRNOTAVAIL') throw new Error(`${host} is not an address of this machine: check --host.`);
  throw error;
}

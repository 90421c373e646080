import { readFileSync } from 'node:fs';
import { Option } from 'commander';
import { databaseUrl, redisUrl } from './serve-checks.ts';

/**
 * Where `serve`, `keys` and `deployments` take their connection URLs from, so that a password need not be in the
 * process list: `--database <url>`, a file (`--database-url-file <path>`, first line) or `SWITCHYARD_DATABASE_URL`;
 * Redis likewise. A password typed on the command line is accepted, with a warning that `ps` shows it and how not to.
 */

export interface ConnectionUrlOptions {
  database?: string;
  databaseUrlFile?: string;
  redis?: string;
  redisUrlFile?: string;
}

export const databaseOption = (what = 'for call records and API keys, shared by replicas') =>
  new Option('--database <url>', `postgres://… ${what} (default SQLite; or SWITCHYARD_DATABASE_URL)`);
export const databaseUrlFileOption = () =>
  new Option('--database-url-file <path>', 'read the --database URL from this file (keeps its password out of ps)');
export const redisOption = () =>
  new Option('--redis <url>', 'redis://… where replicas share rate limits and budgets (or SWITCHYARD_REDIS_URL)');
export const redisUrlFileOption = () =>
  new Option('--redis-url-file <path>', 'read the --redis URL from this file (keeps its password out of ps)');

/** The PostgreSQL URL, checked, from the option, the file or the environment; `undefined`: SQLite. */
export function databaseUrlOf(options: ConnectionUrlOptions, env = process.env): string | undefined {
  const fromFile = urlFile('--database', options.database, '--database-url-file', options.databaseUrlFile);
  if (fromFile !== undefined) return databaseUrl(fromFile, undefined, '--database-url-file');
  return databaseUrl(options.database, env.SWITCHYARD_DATABASE_URL);
}

/** The Redis URL from the option, the file or the environment; `undefined`: none. */
export function redisUrlOf(options: ConnectionUrlOptions, env = process.env): string | undefined {
  const fromFile = urlFile('--redis', options.redis, '--redis-url-file', options.redisUrlFile);
  if (fromFile !== undefined) return redisUrl(fromFile, '--redis-url-file');
  if (options.redis !== undefined) return redisUrl(options.redis, '--redis');
  return redisUrl(env.SWITCHYARD_REDIS_URL || undefined, 'SWITCHYARD_REDIS_URL');
}

/** A warning (`process.emitWarning`) for each URL given on the command line with a password in it. */
export function warnOfPasswordsInArguments(options: ConnectionUrlOptions): void {
  const given = [
    ['--database', options.database, 'SWITCHYARD_DATABASE_URL', '--database-url-file'],
    ['--redis', options.redis, 'SWITCHYARD_REDIS_URL', '--redis-url-file'],
  ] as const;
  for (const [option, value, env, file] of given)
    if (value !== undefined && hasPassword(value))
      process.emitWarning(
        `${option} holds a password, which any user of this machine can read in the process list (ps): put the ` +
          `URL in ${env} or in a file given as ${file} <path> instead.`,
        { code: 'SWITCHYARD_PASSWORD_IN_ARGUMENTS' },
      );
}

function hasPassword(value: string): boolean {
  try {
    const { password, searchParams } = new URL(value);
    return password !== '' || searchParams.has('password') || searchParams.has('sslpassword');
  } catch {
    return false;
  }
}

function urlFile(option: string, value: string | undefined, fileOption: string, path: string | undefined) {
  if (path === undefined) return undefined;
  if (value !== undefined) throw new Error(`Give ${option} or ${fileOption}, not both.`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`${fileOption} ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? error}.`);
  }
  const url = text.split(/\r?\n/)[0]?.trim() ?? '';
  if (url === '') throw new Error(`${fileOption} ${path} is empty: write the URL on its first line.`);
  return url;
}

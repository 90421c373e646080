import { redactUrlCredentials } from '../internal/redact.ts';

/** What `switchyard serve` checks of its options before it starts, and how it explains a port it cannot take. */

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
      `${name} "${redactUrlCredentials(value)}" is not a PostgreSQL URL: give one such as ${EXAMPLE}, or leave it ` +
        'out for SQLite in the data directory.',
    );
  return value;
}

/** A port `serve` cannot listen on, said in the terms of its options; any other error as it is. */
export function explainListenError(error: unknown, host: string, port: number): never {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
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

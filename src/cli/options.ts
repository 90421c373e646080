import { existsSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { loadSqlite } from '../internal/load-sqlite.ts';

/** What the commands share: the data directory and deployment store options, and the checks made before they run. */

const DEFAULT_DATA_DIR = '.switchyard';

export const dataOption = () =>
  new Option('--data <dir>', 'data directory holding the SQLite file').default(DEFAULT_DATA_DIR);

export const deploymentsOption = () =>
  new Option(
    '--deployments <dir|url>',
    'a deployment directory or a switchyard serve URL (key from SWITCHYARD_API_KEY) instead of the data directory',
  );

/** The command as typed (`switchyard keys list`), for the messages that name it. */
function commandName(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Fails before anything is opened, naming the command, when this Node.js has no `node:sqlite`. */
export function requireSqlite(command: Command): void {
  loadSqlite(commandName(command));
}

/**
 * The data directory of a command that only reads what is there (`keys list`, `keys revoke`): one that does not
 * exist is a mistyped `--data`, never a new, empty store.
 */
export function existingDataDir(dir: string, holds: string): string {
  if (!existsSync(dir))
    throw new Error(
      `The data directory ${dir} does not exist, so it holds no ${holds}: pass the --data of your server (default ` +
        `${DEFAULT_DATA_DIR}, in the directory it was started from).`,
    );
  return dir;
}

import { Command } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { escapeUnsafeCharacters } from '../internal/unsafe-text.ts';
import { registerCatalogCommand, registerModelsCommand } from './catalog-command.ts';
import { registerDeploymentsCommand } from './deployments-command.ts';
import { registerKeysCommand } from './keys-command.ts';
import { dataOption } from './options.ts';
import { checkDataDir } from './serve-checks.ts';
import { registerServeCommand } from './serve-command.ts';

// Each command imports what it needs when it runs: `keys create` should not pay for loading the gateway and the MCP
// SDK. A wrong option value is one line naming the option and the values it takes (commander's message), not the
// whole help after it.

/**
 * The `switchyard` commands, parsed from argv. src/cli.ts checks the Node.js version, then loads this module and runs
 * it: loading it does nothing by itself (the build makes it a chunk of its own, which the package's checks load).
 */
export function runCli(): void {
  const program = new Command('switchyard')
    .description('One OpenAI-shaped API for every language model.')
    .version(packageJson.version);

  registerServeCommand(program);

  registerCatalogCommand(program);

  registerKeysCommand(program, dataOption);

  registerModelsCommand(program);

  registerDeploymentsCommand(program);

  // A --data that cannot be a data directory is said so before a command opens it. `serve` always keeps files there;
  // the other commands only when no PostgreSQL or other deployment store stands in for it.
  program.hook('preAction', (_program, command) => {
    const options = command.opts<{
      data?: string;
      database?: string;
      databaseUrlFile?: string;
      deployments?: string;
    }>();
    if (options.data === undefined) return;
    const elsewhere =
      options.database ?? options.databaseUrlFile ?? options.deployments ?? process.env.SWITCHYARD_DATABASE_URL;
    if (command.name() === 'serve' || !elsewhere) checkDataDir(options.data);
  });

  // `switchyard models | head` closes the pipe early; that is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });

  // A message of several lines (each problem of a deployment file) keeps its lines; what is inside them is escaped.
  program.parseAsync(process.argv).catch((error: unknown) => {
    const lines = String((error as Error).message)
      .split('\n')
      .map(escapeUnsafeCharacters);
    process.stderr.write(`switchyard: ${lines.join('\n')}\n`);
    process.exitCode = 1;
  });
}

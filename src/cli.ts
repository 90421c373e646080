#!/usr/bin/env node
import { Command } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import { registerCatalogCommand, registerModelsCommand } from './cli/catalog-command.ts';
import { registerDeploymentsCommand } from './cli/deployments-command.ts';
import { registerKeysCommand } from './cli/keys-command.ts';
import { dataOption } from './cli/options.ts';
import { checkDataDir } from './cli/serve-checks.ts';
import { registerServeCommand } from './cli/serve-command.ts';
import { belowNodeFloor, NODE_FLOOR } from './internal/node-floor.ts';
import { escapeUnsafeCharacters } from './internal/unsafe-text.ts';

// Each command imports what it needs when it runs: `keys create` should not pay for loading the gateway and the MCP
// SDK. A wrong option value is one line naming the option and the values it takes (commander's message), not the
// whole help after it.

// On an older Node.js every provider call would fail (undici, the HTTP client, does not load): said once, up front.
if (belowNodeFloor()) {
  process.stderr.write(
    `switchyard: this is Node.js ${process.version}; it needs Node.js ${NODE_FLOOR} or newer: upgrade Node.js.\n`,
  );
  process.exit(1);
}

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
  const options = command.opts<{ data?: string; database?: string; databaseUrlFile?: string; deployments?: string }>();
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

#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { createGateway } from './gateway.ts';

const HELP = `switchyard — one OpenAI-shaped API for every language model

Usage:
  switchyard models [--reasoning] [--json]   List the model catalog
  switchyard --help                          Show this help

Options for "models":
  --reasoning   Only models that support reasoning
  --json        Print the OpenAI /v1/models JSON instead of a table
`;

function main(argv: string[]): number {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { reasoning: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command] = positionals;
  if (values.help || !command) {
    process.stdout.write(HELP);
    return command || values.help ? 0 : 1;
  }
  if (command !== 'models') {
    process.stderr.write(`Unknown command "${command}".\n\n${HELP}`);
    return 1;
  }
  const list = createGateway({ env: {} }).listModels({ reasoning: values.reasoning ?? false });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return 0;
  }
  const rows = list.data.map((model) => [
    model.id,
    model.owned_by,
    `$${model.pricing.input}`,
    `$${model.pricing.output}`,
    formatTokens(model.context_window),
    model.release_date,
    model.supports.reasoning ? 'yes' : '',
  ]);
  const header = ['id', 'maker', 'in/1M', 'out/1M', 'context', 'released', 'reasoning'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const lines = [header, ...rows].map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd());
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function formatTokens(tokens: number): string {
  return tokens >= 1_000_000 ? `${+(tokens / 1_000_000).toFixed(2)}M` : `${Math.round(tokens / 1000)}K`;
}

// `switchyard models | head` closes the pipe early; that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
}

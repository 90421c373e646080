import { InvalidArgumentError } from 'commander';
import { escapeUnsafeCharacters, escapeUnsafeInJson } from '../internal/unsafe-text.ts';

/**
 * How the CLI reads its numeric options and prints tables, JSON and errors. What it prints can hold names its users
 * chose: control and bidirectional formatting characters are written as visible escapes, never to the terminal.
 */

export function printJson(value: unknown): void {
  process.stdout.write(`${escapeUnsafeInJson(JSON.stringify(value, null, 2))}\n`);
}

export function printTable(header: string[], cells: string[][]): void {
  const rows = cells.map((row) => row.map(escapeUnsafeCharacters));
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const lines = [header, ...rows].map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd(),
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function formatTokens(tokens: number): string {
  return tokens >= 1_000_000 ? `${+(tokens / 1_000_000).toFixed(2)}M` : `${Math.round(tokens / 1000)}K`;
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535.');
  return port;
}

export function parsePositiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1)
    throw new InvalidArgumentError('expected a whole number of at least 1.');
  return number;
}

/** A duration in seconds: 0 or more, fractions allowed, at most an hour. */
export function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds < 0 || seconds > 3600)
    throw new InvalidArgumentError('expected a number of seconds from 0 to 3600.');
  return seconds;
}

import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * `switchyard …` and `npx switchyard-llm …` in the documented shell examples: the CLI from source. `serve` really
 * starts (as written, on a free port) and is stopped once it listens, so that a block can go on: its requests go to
 * the server the docs test started, which serves the same data directory. In a walkthrough (`DOCS_WALKTHROUGH`),
 * `serve` runs as written until the walkthrough stops it. `npx` of anything else is refused (no registry, no network).
 */
const root = resolve(import.meta.dirname, '../..');
const cli = resolve(root, 'src/cli.ts');
const [tool, ...rest] = process.argv.slice(2);

if (tool === 'npx') {
  const [name, ...args] = rest;
  if (name !== 'switchyard-llm') {
    process.stderr.write(`docs test: \`npx ${name}\` is not available offline\n`);
    process.exit(127);
  }
  await run(args);
} else await run(rest);

async function run(args: string[]): Promise<void> {
  const serve = args[0] === 'serve' && !process.env.DOCS_WALKTHROUGH;
  const child = spawn(process.execPath, [cli, ...args, ...(serve ? ['--port', '0'] : [])], {
    stdio: ['inherit', 'inherit', serve ? 'pipe' : 'inherit'],
  });
  if (serve) {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      seen += chunk.toString();
      if (seen.includes('"msg":"listening"')) child.kill('SIGTERM');
    });
  }
  // `kill` of the command the reader started reaches the CLI itself.
  for (const name of ['SIGINT', 'SIGTERM'] as const) process.on(name, () => child.kill(name));
  const [code, signal] = await new Promise<[number | null, string | null]>((done) =>
    child.on('exit', (exitCode, exitSignal) => done([exitCode, exitSignal])),
  );
  process.exit(code ?? (signal ? 1 : 0));
}

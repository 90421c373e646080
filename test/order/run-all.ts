import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * `npm test`: the type check and Biome run beside vitest instead of before it. Vitest leaves about a sixth of two
 * cores idle (its files wait on child processes, servers and sockets); the type check (~35 s of CPU) fills that
 * instead of holding the suite back ~27 s. Vitest writes as it goes; the checks' output is printed whole when each
 * ends. Arguments go to vitest. The exit code is non-zero when any of the three failed.
 */
const root = resolve(import.meta.dirname, '../..');
const bin = (name: string) => resolve(root, 'node_modules/.bin', name);

/** Runs a check with its output held, then prints it, named, and resolves its exit code. */
function check(name: string, command: string, args: string[]): Promise<number> {
  const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
  return new Promise((done) =>
    child.on('close', (code) => {
      const text = Buffer.concat(output).toString().trimEnd();
      process.stdout.write(
        `\n── ${name}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`}\n${text ? `${text}\n` : ''}`,
      );
      done(code ?? 1);
    }),
  );
}

function vitest(args: string[]): Promise<number> {
  const child = spawn(bin('vitest'), ['run', ...args], { cwd: root, stdio: 'inherit' });
  return new Promise((done) => child.on('close', (code) => done(code ?? 1)));
}

const codes = await Promise.all([
  check('type check (tsc --noEmit)', bin('tsc'), ['--noEmit']),
  check('lint (biome check .)', bin('biome'), ['check', '.']),
  vitest(process.argv.slice(2)),
]);
const failed = ['type check', 'lint', 'vitest'].filter((_, index) => codes[index] !== 0);
if (failed.length > 0) process.stdout.write(`\nnpm test: ${failed.join(', ')} failed\n`);
process.exitCode = failed.length > 0 ? 1 : 0;

import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { parse as parseYaml } from 'yaml';
import { freePort } from '../helpers/free-port.ts';
import { type DocsWorld, node, root } from './docs-world.ts';
import { NETWORK_MARK } from './loopback-only.ts';
import type { CodeBlock } from './markdown-blocks.ts';

export interface BlockResult {
  ok: boolean;
  /** What went wrong, or the output. */
  detail: string;
}

/** A block to run, or an example file run in place (`source`). */
export type Runnable = CodeBlock & { source?: string };

/**
 * Extracted blocks are written here: inside the package, so that `import … from 'switchyard-llm'` resolves. One
 * directory per test worker (the threads of one process share its pid), which its file removes when done.
 */
export const runDir = join(root, '.docs-run', `${process.pid}-${threadId}`);
const TIMEOUT_MS = 30_000;
const DOCS_PORT = '127.0.0.1:8787';

/** A shell block that starts `switchyard serve` itself (`npx switchyard-llm serve`, `switchyard serve`). */
const STARTS_SERVE = /(^|[\s;&|$(])(npx switchyard-llm|switchyard) serve\b/m;
const SHELL_LANGS = new Set(['sh', 'bash', 'console']);

export async function runBlock(block: Runnable, world: DocsWorld): Promise<BlockResult> {
  // A block that starts its own server talks to it, on a port of its own (SWITCHYARD_PORT, which `serve` reads);
  // the others talk to the server the test started.
  const ownPort = SHELL_LANGS.has(block.lang) && STARTS_SERVE.test(block.code) ? await freePort() : undefined;
  const server = ownPort === undefined ? world.server : `127.0.0.1:${ownPort}`;
  const env = ownPort === undefined ? world.env : { ...world.env, SWITCHYARD_PORT: String(ownPort) };
  const code = block.code.replaceAll(DOCS_PORT, server);
  try {
    if (block.lang === 'json') return { ok: true, detail: typeof JSON.parse(code) };
    if (block.lang === 'yaml') return { ok: true, detail: typeof parseYaml(code) };
  } catch (error) {
    return { ok: false, detail: String(error) };
  }
  mkdirSync(runDir, { recursive: true });
  const name = `${block.file.replace(/\W+/g, '_')}-${block.line}`;
  if (block.source) return run(node, [block.source], world);
  if (['ts', 'typescript', 'js', 'javascript'].includes(block.lang)) {
    const file = join(runDir, `${name}.mts`);
    writeFileSync(file, code);
    return run(node, [file], { ...world, env }).finally(() => rmSync(file, { force: true }));
  }
  const steps = block.lang === 'console' ? transcript(code) : undefined;
  const file = join(runDir, `${name}.sh`);
  const body = steps
    ? steps.map((step, index) => `printf '\\n@@step ${index}\\n'\n${step.command}`).join('\n')
    : code.replace(/\n+$/, '');
  // What the block left running (a server it started) is stopped once it is done, as the reader would.
  writeFileSync(file, `set -eo pipefail\n${body}\n`);
  const shellEnv = steps ? { ...env, DOCS_TRANSCRIPT: '1' } : env;
  const result = await run('bash', [file], { ...world, env: shellEnv }).finally(() => rmSync(file, { force: true }));
  return result.ok && steps ? compareTranscript(steps, result.detail) : result;
}

/** The run ends rooted in the working directory; every process it started is ended with it. */
export function run(
  command: string,
  args: string[],
  world: Pick<DocsWorld, 'dir' | 'env'>,
  timeoutMs = TIMEOUT_MS,
): Promise<BlockResult> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: world.dir, env: world.env, detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const endGroup = (signal: NodeJS.Signals = 'SIGKILL') => {
      try {
        process.kill(-child.pid!, signal);
      } catch {}
    };
    // Once the block's shell is done, what it started and left running (a `serve &`: npx does not pass signals on)
    // is asked to stop; its output ends when it has.
    child.on('exit', () => endGroup('SIGTERM'));
    const timer = setTimeout(() => {
      stderr += `\n[docs test: still running after ${timeoutMs} ms; stopped]`;
      endGroup();
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      endGroup();
      const network = stderr.includes(NETWORK_MARK);
      const ok = code === 0 && !network;
      const why = network ? 'it tried to reach the network' : `exit ${code ?? signal}`;
      done({ ok, detail: ok ? stdout : `${why}\n--- stdout\n${tail(stdout)}\n--- stderr\n${tail(stderr)}` });
    });
  });
}

const tail = (text: string) => (text.length > 3000 ? `…${text.slice(-3000)}` : text);

interface Step {
  command: string;
  /** The output the transcript shows under the command. */
  shown: string;
}

/** A session as the docs show it: `$ ` commands (continued by a trailing `\`), each followed by its output. */
function transcript(code: string): Step[] {
  const steps: Step[] = [];
  let continued = false;
  for (const line of code.split('\n')) {
    const step = steps.at(-1);
    if (continued && step) step.command += `\n${line}`;
    else if (line.startsWith('$ ')) steps.push({ command: line.slice(2), shown: '' });
    else if (step) step.shown += `${line}\n`;
    continued = (line.startsWith('$ ') || continued) && line.endsWith('\\');
  }
  return steps;
}

/** The first token of an output: the first key of a JSON object, or the first word (`201`, `data:`). */
const firstToken = (text: string) => /^\{"[^"]*"/.exec(text.trim())?.[0] ?? text.trim().split(/\s/)[0] ?? '';

/** Each command's output starts as the transcript shows it (ids and times differ run to run, so no more). */
function compareTranscript(steps: Step[], stdout: string): BlockResult {
  // A command's output may not end its line: each marker starts on a line of its own.
  const outputs = stdout.split(/\n@@step \d+\n/).slice(1);
  for (const [index, step] of steps.entries()) {
    if (!step.shown.trim() || step.command.trimEnd().endsWith('&')) continue;
    const shown = firstToken(step.shown);
    const got = firstToken(outputs[index] ?? '');
    if (shown !== got) {
      return { ok: false, detail: `$ ${step.command}\nshown: ${step.shown.slice(0, 300)}got: ${outputs[index]}` };
    }
  }
  return { ok: true, detail: stdout };
}

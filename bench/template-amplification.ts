/**
 * A template amplification attack (one large input referenced many times) on a real `switchyard serve --mock`:
 *
 *   node bench/template-amplification.ts [--requests 4] [--mb 3] [--refs 150]
 *
 * Each request sends a `--mb` MB `input.doc` that its messages reference `--refs` times, as a direct call and as a
 * stored deployment (`switchyard/deployment/<id>`); `--requests` of each run at once. Prints each answer's status
 * and code, the wall time, and the server's peak RSS (VmHWM) and whether it survived.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '4' },
    mb: { type: 'string', default: '3' },
    refs: { type: 'string', default: '150' },
  },
});
const requests = Number(args.requests);
const refs = Number(args.refs);
const doc = 'x'.repeat(Number(args.mb) * 1024 * 1024);
const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-amplification-'));

const peakRssMb = (pid: number) => {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : Number.NaN;
};

const key = execFileSync(process.execPath, [cli, 'keys', 'create', '--data', dataDir], { encoding: 'utf8' }).trim();
const server = spawn(process.execPath, [cli, 'serve', '--mock', '--port', '0', '--data', dataDir], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
let exit: string | undefined;
server.once('exit', (code, signal) => (exit = `exited (${signal ?? code})`));
const url = await new Promise<string>((resolve, reject) => {
  let text = '';
  server.stderr.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    const listening = /"msg":"listening","url":"([^"]+)"/.exec(text);
    if (listening) resolve(listening[1]!);
  });
  server.once('exit', () => reject(new Error(`serve exited:\n${text}`)));
});

const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
const content = Array.from({ length: refs }, () => '{{doc}}').join(' ');
const deployment = {
  id: 'amplifier:production#1',
  agent_id: 'amplifier',
  environment: 'production',
  number: 1,
  version: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] },
  created_at: '2025-10-01T12:00:00Z',
};
const put = await fetch(`${url}/v1/deployments/${encodeURIComponent(deployment.id)}`, {
  method: 'PUT',
  headers,
  body: JSON.stringify(deployment),
});
if (!put.ok) throw new Error(`PUT deployment: ${put.status} ${await put.text()}`);

const bodies = {
  direct: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], input: { doc } }),
  deployment: JSON.stringify({ model: `switchyard/deployment/${deployment.id}`, input: { doc } }),
};
const baseline = peakRssMb(server.pid!);
const started = performance.now();
const answers = await Promise.all(
  Object.entries(bodies).flatMap(([kind, body]) =>
    Array.from({ length: requests }, async () => {
      try {
        const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers, body });
        const answer = (await response.json()) as { error?: { code?: string } };
        return `${kind} ${response.status} ${answer.error?.code ?? 'ok'}`;
      } catch (error) {
        return `${kind} failed: ${(error as Error).message}`;
      }
    }),
  ),
);
const seconds = ((performance.now() - started) / 1000).toFixed(2);
const peak = exit ? Number.NaN : peakRssMb(server.pid!);
console.log(`answers: ${[...new Set(answers)].map((a) => `${a} ×${answers.filter((b) => b === a).length}`)}`);
console.log(`time ${seconds} s; serve RSS ${baseline} MB before, peak ${peak} MB; server ${exit ?? 'alive'}`);
server.kill('SIGTERM');
await new Promise((resolve) => (exit ? resolve(undefined) : server.once('exit', resolve)));
rmSync(dataDir, { recursive: true, force: true });

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * The real coding agents, run from outside as their users run them: Claude Code (`claude -p`) and Codex (`codex exec`)
 * with their default settings, pointed at a gateway, every other way to the network turned off, in temporary home
 * and configuration directories. `.ci/run` installs them (pinned versions, outside this repository's node_modules)
 * and names their `bin` directory in `SWITCHYARD_AGENTS_BIN`.
 */

export type AgentName = 'claude-code' | 'codex';

const root = resolve(import.meta.dirname, '../..');
/** Node.js 24 first on the agents' PATH (the devDependency; the system's may be older). */
const nodeBin = join(root, 'node_modules/.bin');

/** Where the agents' executables are: `SWITCHYARD_AGENTS_BIN`, else `${TMPDIR:-/tmp}/switchyard-agents`'s. */
export function agentsBin(): string {
  return process.env.SWITCHYARD_AGENTS_BIN ?? join(tmpdir(), 'switchyard-agents/node_modules/.bin');
}

export function agentExecutable(agent: AgentName): string {
  return join(agentsBin(), agent === 'claude-code' ? 'claude' : 'codex');
}

/** The agents that are not installed (CI must have both; elsewhere their tests skip, saying so). */
export function missingAgents(): AgentName[] {
  return (['claude-code', 'codex'] as const).filter((agent) => !existsSync(agentExecutable(agent)));
}

/** One request an agent sent the gateway, as the capture saw it (no credentials: those headers are left out). */
export interface CapturedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
  status: number;
}

export interface AgentRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  requests: CapturedRequest[];
  /** The directory the agent worked in (removed after the turn, unless `SWITCHYARD_KEEP_AGENT_DIRS` is set). */
  workdir: string;
  /** The files of the working directory after the turn, by path: what the agent left on disk. */
  files: Record<string, string>;
}

export interface Turn {
  agent: AgentName;
  /** The gateway (`switchyard serve`) the agent is pointed at, and a key it takes. */
  gateway: { url: string; key: string };
  /** The model, as the agent's own option names it; `undefined`: the agent's default. */
  model: string | undefined;
  prompt: string;
  /** Files to put in the working directory first (for a turn that edits one). */
  files?: Record<string, string>;
  /**
   * The agent may write in its working directory, as its users let it non-interactively: Codex with
   * `--sandbox workspace-write` (its default sandbox is read-only), Claude Code with `--permission-mode acceptEdits`
   * (its default asks, and `-p` has no one to ask).
   */
  writes?: boolean;
  /** Codex reads the gateway's model catalog (`model_catalog_url`, default); `false`: Codex's own metadata only. */
  codexCatalog?: boolean;
  /** A bound to catch a hung agent, not a timing assertion. */
  timeoutMs?: number;
}

/** Runs one turn of an agent through a capturing proxy in front of the gateway. */
export async function runTurn(turn: Turn): Promise<AgentRun> {
  const dir = mkdtempSync(join(tmpdir(), `switchyard-${turn.agent}-`));
  const workdir = join(dir, 'work');
  mkdirSync(workdir);
  for (const [name, text] of Object.entries(turn.files ?? {})) {
    mkdirSync(dirname(join(workdir, name)), { recursive: true });
    writeFileSync(join(workdir, name), text);
  }
  const proxy = await captureProxy(turn.gateway.url);
  try {
    const { args, env } = (turn.agent === 'claude-code' ? claudeCode : codex)(turn, dir, proxy.url);
    const result = await run(agentExecutable(turn.agent), args, { cwd: workdir, env, timeoutMs: turn.timeoutMs });
    return { ...result, requests: proxy.requests, workdir, files: filesIn(workdir) };
  } finally {
    await proxy.close();
    if (!process.env.SWITCHYARD_KEEP_AGENT_DIRS) rmSync(dir, { recursive: true, force: true });
  }
}

/** What every agent runs with: no variable of this process (no key of a real provider can leak in). */
function baseEnv(home: string): Record<string, string> {
  return { PATH: `${nodeBin}:/usr/local/bin:/usr/bin:/bin`, HOME: home, LANG: 'C.UTF-8', TERM: 'dumb' };
}

/** `claude -p`, default settings; updates, telemetry, error reports and other traffic off. */
function claudeCode(turn: Turn, dir: string, url: string): { args: string[]; env: Record<string, string> } {
  const home = join(dir, 'home');
  mkdirSync(home);
  const env = {
    ...baseEnv(home),
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: turn.gateway.key,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_BUG_COMMAND: '1',
  };
  const permission = turn.writes ? ['--permission-mode', 'acceptEdits'] : [];
  return { args: ['-p', ...permission, ...(turn.model ? ['--model', turn.model] : []), turn.prompt], env };
}

/**
 * `codex exec` with a provider of its configuration speaking the Responses API to the gateway; update checks,
 * analytics, plugins and ChatGPT apps off.
 */
function codex(turn: Turn, dir: string, url: string): { args: string[]; env: Record<string, string> } {
  const home = join(dir, 'codex-home');
  mkdirSync(home);
  writeFileSync(
    join(home, 'config.toml'),
    [
      'model_provider = "switchyard"',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.switchyard]',
      'name = "Switchyard"',
      `base_url = "${url}/v1"`,
      'env_key = "SWITCHYARD_API_KEY"',
      'wire_api = "responses"',
      // The gateway's catalog in Codex's shape: every model gets its apply_patch tool (docs/responses-api.md).
      ...(turn.codexCatalog === false ? [] : [`model_catalog_url = "${url}/v1/codex/models"`]),
      '',
      '[analytics]',
      'enabled = false',
      '',
      // Each of these reaches beyond the gateway at start (github.com, api.github.com, chatgpt.com: seen with strace).
      '[features]',
      'plugins = false',
      'remote_plugin = false',
      'apps = false',
      'in_app_updates = false',
      '',
    ].join('\n'),
  );
  const env = { ...baseEnv(home), CODEX_HOME: home, SWITCHYARD_API_KEY: turn.gateway.key };
  const sandbox = turn.writes ? ['--sandbox', 'workspace-write'] : [];
  const args = ['exec', '--skip-git-repo-check', ...sandbox, ...(turn.model ? ['-m', turn.model] : []), turn.prompt];
  return { args, env };
}

/** Every file under `dir` (the agents' own directories aside, none of which is in the working directory). */
function filesIn(dir: string, prefix = ''): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) Object.assign(files, filesIn(dir, path));
    else if (entry.isFile()) files[path] = readFileSync(join(dir, path), 'utf8');
  }
  return files;
}

function run(
  file: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs: number | undefined },
): Promise<Omit<AgentRun, 'requests' | 'workdir' | 'files'>> {
  return new Promise((done) => {
    const child = execFile(
      file,
      args,
      { cwd: options.cwd, env: options.env, timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const exitCode = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        done({ exitCode, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

/** Headers that carry a credential: never captured. */
const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'cookie']);

/**
 * A proxy that hands each request to the gateway as it came and streams the answer back as it goes, keeping the
 * requests (their JSON bodies, headers without credentials) and the statuses answered.
 */
async function captureProxy(
  target: string,
): Promise<{ url: string; requests: CapturedRequest[]; close(): Promise<void> }> {
  const requests: CapturedRequest[] = [];
  const upstream = new URL(target);
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const raw = Buffer.concat(chunks);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(incoming.headers))
        if (!SECRET_HEADERS.has(name) && typeof value === 'string') headers[name] = value;
      const captured: CapturedRequest = {
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        headers,
        body: raw.length > 0 ? parseJson(raw.toString('utf8')) : null,
        status: 0,
      };
      requests.push(captured);
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, path: captured.path, method: captured.method },
        (answer) => {
          captured.status = answer.statusCode ?? 0;
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      for (const [name, value] of Object.entries(incoming.headers))
        if (value !== undefined && name !== 'host') forward.setHeader(name, value);
      forward.on('error', (error) => {
        captured.status = 502;
        outgoing.writeHead(502).end(String(error));
      });
      forward.end(raw);
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}

function parseJson(text: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { unparsed: text.slice(0, 200) };
  }
}

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { AgentName, AgentRun, CapturedRequest } from './agent-runs.ts';
import { agentsBin } from './agent-runs.ts';

/**
 * The exact requests the coding agents send, captured from real runs (`agents.e2e.test.ts` with
 * `SWITCHYARD_CAPTURE_AGENT_FIXTURES=1`) and kept under `test/fixtures/agents/<agent>/<name>.json` (the family, or
 * `<family>-edit` for a tool-using turn), so that a change that refuses them fails the unit suite too, where the
 * agents are not installed.
 */

const root = resolve(import.meta.dirname, '../..');
export const FIXTURES = join(root, 'test/fixtures/agents');

export interface AgentFixture {
  agent: AgentName;
  /** The agent's npm version that sent it. */
  version: string;
  /** The file's name (not stored in it): the model family, or `<family>-edit` for a tool-using turn's last request. */
  name: string;
  /** The model family the agent was pointed at (the fixture is replayed on every family). */
  family: string;
  /** Path and query as sent (`/v1/messages?beta=true`, `/v1/responses`). */
  path: string;
  /** The headers that shape the request (betas, versions), never credentials. */
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

const PACKAGES: Record<AgentName, string> = { 'claude-code': '@anthropic-ai/claude-code', codex: '@openai/codex' };
const KEPT_HEADERS = ['anthropic-beta', 'anthropic-version', 'user-agent', 'originator', 'x-app', 'accept'];

/** Writes a run's request as the fixture `name` of `agent` on `family`, its temporary directories made neutral. */
export function writeAgentFixture(
  { agent, name, family }: Pick<AgentFixture, 'agent' | 'name' | 'family'>,
  request: CapturedRequest,
  run: AgentRun,
): void {
  const manifest = join(agentsBin(), '..', PACKAGES[agent], 'package.json');
  const version = existsSync(manifest)
    ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
    : '';
  const headers = Object.fromEntries(
    KEPT_HEADERS.flatMap((name) => (request.headers[name] ? [[name, request.headers[name]]] : [])),
  );
  const home = dirname(run.workdir);
  const text = JSON.stringify(request.body)
    .replaceAll(run.workdir, '/home/user/project')
    .replaceAll(home, '/home/user');
  const fixture: Omit<AgentFixture, 'name'> = {
    agent,
    version,
    family,
    path: request.path,
    headers,
    body: JSON.parse(text),
  };
  mkdirSync(join(FIXTURES, agent), { recursive: true });
  const file = join(FIXTURES, agent, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(fixture, null, 2)}\n`);
  // As the repository formats its JSON (Biome), so a capture changes only what the agent sends differently.
  execFileSync(join(root, 'node_modules/.bin/biome'), ['format', '--write', file], { stdio: 'ignore' });
}

/** Every stored fixture. */
export function readAgentFixtures(): AgentFixture[] {
  if (!existsSync(FIXTURES)) return [];
  return readdirSync(FIXTURES).flatMap((agent) =>
    readdirSync(join(FIXTURES, agent))
      .filter((file) => file.endsWith('.json'))
      .sort()
      .map((file) => ({
        ...(JSON.parse(readFileSync(join(FIXTURES, agent, file), 'utf8')) as Omit<AgentFixture, 'name'>),
        name: file.slice(0, -'.json'.length),
      })),
  );
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';
import { writeAgentFixture } from './agent-fixtures.ts';
import { type AgentName, type AgentRun, agentsBin, missingAgents, runTurn } from './agent-runs.ts';

/**
 * Issue 35: Claude Code and Codex, the real agents from npm, with their default settings against `serve --mock`, one
 * turn each on a Claude, an OpenAI and a Gemini model. Locally, without the agents installed, this file skips and
 * says so; in CI (`CI` set) a missing agent fails it. `SWITCHYARD_CAPTURE_AGENT_FIXTURES=1` writes each run's first
 * request to `test/fixtures/agents/`, which `test/dialects/agent-fixtures.test.ts` replays in the unit suite.
 *
 * A turn is a row of `TURNS`: a tool-using turn (Codex editing a file through `apply_patch` on Claude) is one more
 * row with its prompt, the files it starts from and a check of the files it leaves.
 */
const missing = missingAgents();
const skip = missing.length > 0 && !process.env.CI;
if (skip)
  console.warn(`SKIPPED: the coding agents' end-to-end turns (${missing.join(', ')} not installed in ${agentsBin()}).`);

interface TurnRow {
  agent: AgentName;
  /** Claude, OpenAI or Gemini: the fixture's name too. */
  family: 'claude' | 'openai' | 'gemini';
  /** As the agent's option names it; `undefined`: the agent's own default model. */
  model: string | undefined;
  /** The catalog id the gateway records the call under. */
  recorded: string;
  prompt: string;
  files?: Record<string, string>;
  check?: (run: AgentRun) => void;
}

const TURNS: TurnRow[] = [
  // Claude Code's default model is a Claude (claude-opus-5-5 in 2.1.328).
  { agent: 'claude-code', family: 'claude', model: undefined, recorded: 'claude-opus-5-5', prompt: 'Say hello' },
  { agent: 'claude-code', family: 'openai', model: 'gpt-4o', recorded: 'gpt-4o-2024-11-20', prompt: 'Say hello' },
  {
    agent: 'claude-code',
    family: 'gemini',
    model: 'gemini-2.5-flash',
    recorded: 'gemini-2.5-flash',
    prompt: 'Say hello',
  },
  // Codex's default model is OpenAI's (gpt-6.1-sol in 0.169.0), which sends its tools in an additional_tools item.
  { agent: 'codex', family: 'openai', model: undefined, recorded: 'gpt-6.1-sol', prompt: 'Say hello' },
  { agent: 'codex', family: 'claude', model: 'claude-sonnet-5-5', recorded: 'claude-sonnet-5-5', prompt: 'Say hello' },
  { agent: 'codex', family: 'gemini', model: 'gemini-2.5-flash', recorded: 'gemini-2.5-flash', prompt: 'Say hello' },
];

const ROUTE: Record<AgentName, string> = { 'claude-code': '/v1/messages', codex: '/v1/responses' };
const DIALECT = { 'claude-code': 'messages', codex: 'responses' } as const;

describe.skipIf(skip)('the coding agents with their default settings, one turn each', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ mock: true });
  });
  afterAll(() => server?.stop());

  it('are installed (CI installs them: .ci/run)', () => {
    expect(missing, `install them in ${agentsBin()}`).toEqual([]);
  });

  for (const row of TURNS) {
    it(`${row.agent} on ${row.family} (${row.model ?? 'its default model'})`, { timeout: 180_000 }, async () => {
      const run = await runTurn({
        agent: row.agent,
        gateway: { url: server.url, key: server.key },
        model: row.model,
        prompt: row.prompt,
        ...(row.files ? { files: row.files } : {}),
      });
      const context = `${row.agent} exited ${run.exitCode}\nstdout: ${run.stdout}\nstderr: ${run.stderr.slice(-3000)}`;
      expect(run.exitCode, context).toBe(0);
      expect(run.stdout.trim(), context).not.toBe('');
      const turns = run.requests.filter((request) => request.path.split('?')[0] === ROUTE[row.agent]);
      expect(turns.length, context).toBeGreaterThan(0);
      expect(
        turns.map((request) => request.status),
        context,
      ).toEqual(turns.map(() => 200));
      await server.server.gateway.flush();
      const { data } = await server.server.gateway.calls.list({ dialect: DIALECT[row.agent], limit: 100 });
      const answered = data.filter((record) => record.model === row.recorded && record.status === 'ok');
      expect(answered.length, context).toBeGreaterThan(0);
      row.check?.(run);
      if (process.env.SWITCHYARD_CAPTURE_AGENT_FIXTURES) writeAgentFixture(row.agent, row.family, turns[0]!, run);
    });
  }
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';
import { writeAgentFixture } from './agent-fixtures.ts';
import { type AgentName, agentsBin, missingAgents, runTurn } from './agent-runs.ts';

/**
 * Issue 35: Claude Code and Codex, the real agents from npm, with their default settings against `serve --mock`, one
 * turn each on a Claude, an OpenAI and a Gemini model; on a model of another maker than the agent's, the turn uses a
 * tool: Codex edits through `apply_patch` on Claude and on Gemini, Claude Code through `Write` on an OpenAI model.
 * Locally, without the agents installed, this file skips and says so; in CI (`CI` set) a missing agent fails it.
 * `SWITCHYARD_CAPTURE_AGENT_FIXTURES=1` writes each run's request to `test/fixtures/agents/` (a tool-using turn's
 * last, with the call and its result in the history), which `test/dialects/agent-fixtures.test.ts` replays in the
 * unit suite.
 *
 * Codex reads the gateway's model catalog (`/v1/codex/models`, its provider's `model_catalog_url`), as
 * docs/responses-api.md says to point it at serve, but for its default model's turn, which shows Codex's own metadata
 * for its own models (its tools in an `additional_tools` item).
 */
const missing = missingAgents();
const skip = missing.length > 0 && !process.env.CI;
if (skip)
  console.warn(`SKIPPED: the coding agents' end-to-end turns (${missing.join(', ')} not installed in ${agentsBin()}).`);

interface TurnRow {
  agent: AgentName;
  /** Claude, OpenAI or Gemini: the fixture's name too (`<family>-edit` for a tool-using turn). */
  family: 'claude' | 'openai' | 'gemini';
  /** As the agent's option names it; `undefined`: the agent's own default model. */
  model: string | undefined;
  /** The catalog id the gateway records the call under. */
  recorded: string;
  prompt: string;
  /** Codex reads the gateway's model catalog (default); `false`: Codex's own metadata only. */
  codexCatalog?: boolean;
  /** A tool-using turn: the files it starts from, and a check of those it leaves (it may write in its directory). */
  edit?: { files: Record<string, string>; check: (files: Record<string, string>) => void };
}

/** The simulator's patch or file: it writes the file the request names, with this text. */
const SIMULATED = 'Simulated by Switchyard';
const STARTING_FILES = { 'README.md': '# Project\n' };
const created = (name: string, text: string) => (files: Record<string, string>) =>
  expect(files).toEqual({ ...STARTING_FILES, [name]: text });

const TURNS: TurnRow[] = [
  // Claude Code's default model is a Claude (claude-opus-5-5 in 2.1.328).
  { agent: 'claude-code', family: 'claude', model: undefined, recorded: 'claude-opus-5-5', prompt: 'Say hello' },
  {
    agent: 'claude-code',
    family: 'openai',
    model: 'gpt-4o',
    recorded: 'gpt-4o-2024-11-20',
    prompt: 'Use the Write tool to create hello.txt',
    // The simulator's Write: an instance of the tool's schema, with the file named in its path.
    edit: { files: STARTING_FILES, check: created('hello.txt', 'example') },
  },
  {
    agent: 'claude-code',
    family: 'gemini',
    model: 'gemini-2.5-flash',
    recorded: 'gemini-2.5-flash',
    prompt: 'Say hello',
  },
  // Codex's own default model is OpenAI's (gpt-6.1-sol in 0.169.0), which sends its tools in an additional_tools item.
  {
    agent: 'codex',
    family: 'openai',
    model: undefined,
    recorded: 'gpt-6.1-sol',
    prompt: 'Say hello',
    codexCatalog: false,
  },
  // The simulator's apply_patch: a patch its grammar accepts, adding the file named.
  ...(['claude-sonnet-5-5', 'gemini-2.5-flash'] as const).map(
    (model): TurnRow => ({
      agent: 'codex',
      family: model.startsWith('claude') ? 'claude' : 'gemini',
      model,
      recorded: model,
      prompt: 'use apply_patch to create hello.txt',
      edit: { files: STARTING_FILES, check: created('hello.txt', `${SIMULATED}\n`) },
    }),
  ),
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
    const title = `${row.agent} on ${row.family} (${row.model ?? 'its default model'})`;
    it(row.edit ? `${title} edits a file` : title, { timeout: 180_000 }, async () => {
      const run = await runTurn({
        agent: row.agent,
        gateway: { url: server.url, key: server.key },
        model: row.model,
        prompt: row.prompt,
        ...(row.edit ? { files: row.edit.files, writes: true } : {}),
        ...(row.codexCatalog === false ? { codexCatalog: false } : {}),
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
      if (row.edit) {
        // The tool ran on disk, and its result went back to the model, which ended the turn in words.
        row.edit.check(run.files);
        expect(turns.length, context).toBe(2);
        expect(run.stdout, context).toContain('(after ');
      }
      if (process.env.SWITCHYARD_CAPTURE_AGENT_FIXTURES) {
        // The turn's first request; a tool-using turn's last too, with the call and its result in the history.
        const { agent, family } = row;
        writeAgentFixture({ agent, name: family, family }, turns[0]!, run);
        if (row.edit) writeAgentFixture({ agent, name: `${family}-edit`, family }, turns.at(-1)!, run);
      }
    });
  }
});

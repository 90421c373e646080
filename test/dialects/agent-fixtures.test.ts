import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentFixture, readAgentFixtures } from '../agents/agent-fixtures.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * The exact requests Claude Code and Codex send with their default settings (captured from real runs, issue 35:
 * `test/fixtures/agents/`), replayed through the dialect routes of `serve --mock` on a Claude, an OpenAI and a Gemini
 * model each: every one is taken and answered whole. The simulator stands in for each model's provider after that
 * provider's own request conversion, so a validator or a converter that refuses one of them fails here, without the
 * agents installed.
 *
 * Tool-using turns both ways: the request of a turn that asks for a tool (Codex's "use apply_patch to create
 * hello.txt", Claude Code's "Use the Write tool…") is answered with a call of it, Codex's a `custom_tool_call` on every
 * model; the turn's last request (`<family>-edit`), whose history holds the call and its result (`custom_tool_call` and
 * `custom_tool_call_output` for Codex), is answered in words.
 */
const fixtures = readAgentFixtures();
const MODELS = { claude: 'claude-sonnet-5-5', openai: 'gpt-5.1', gemini: 'gemini-2.5-flash' };
/** The fixtures that ask for a tool, and the tool. */
const ASKS_FOR: Record<string, string> = {
  'claude-code/openai': 'Write',
  'codex/claude': 'apply_patch',
  'codex/gemini': 'apply_patch',
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ mock: true });
});
afterAll(() => server.stop());

it('has the requests of both agents on every model family, and of their tool-using turns', () => {
  const stored = fixtures.map((fixture) => `${fixture.agent}/${fixture.name}`).sort();
  expect(stored).toEqual([
    'claude-code/claude',
    'claude-code/gemini',
    'claude-code/openai',
    'claude-code/openai-edit',
    'codex/claude',
    'codex/claude-edit',
    'codex/gemini',
    'codex/gemini-edit',
    'codex/openai',
  ]);
});

it('keeps the history of a tool-using turn: the call and its result', () => {
  for (const name of ['codex/claude-edit', 'codex/gemini-edit']) {
    const input = fixtureNamed(name).body.input as Array<{ type: string; name?: string }>;
    expect(input.slice(-2).map((item) => item.type)).toEqual(['custom_tool_call', 'custom_tool_call_output']);
    expect(input.at(-2)!.name).toBe('apply_patch');
  }
});

describe.each(fixtures)('$agent $version as sent to a $family model ($name)', (fixture) => {
  for (const [family, model] of Object.entries(MODELS)) {
    it(`is answered whole on ${family} (${model})`, async () => {
      const response = await fetch(`${server.url}${fixture.path}`, {
        method: 'POST',
        headers: { ...fixture.headers, 'content-type': 'application/json', authorization: `Bearer ${server.key}` },
        body: JSON.stringify({ ...fixture.body, model }),
      });
      const text = await response.text();
      expect(response.status, text.slice(0, 500)).toBe(200);
      expect(text).not.toMatch(/^event: error$/m);
      if (fixture.agent === 'claude-code') expect(text).toMatch(/^event: message_stop$/m);
      else expect(text).toMatch(/^event: response\.completed$/m);
      const tool = ASKS_FOR[`${fixture.agent}/${fixture.name}`];
      expect(calledTools(fixture, text)).toEqual(tool ? [tool] : []);
      if (tool === 'apply_patch')
        expect(customInputs(text)[0]).toMatch(/^\*\*\* Begin Patch\n\*\*\* Add File: hello\.txt\n/);
    });
  }
});

function fixtureNamed(name: string): AgentFixture {
  const found = fixtures.find((fixture) => `${fixture.agent}/${fixture.name}` === name);
  if (!found) throw new Error(`no fixture ${name}`);
  return found;
}

/** The data of each event of an SSE stream. */
function events(text: string): Array<Record<string, unknown>> {
  return [...text.matchAll(/^data: (.+)$/gm)].flatMap(([, data]) => {
    try {
      return [JSON.parse(data!) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** The tools the answer calls: Messages' `tool_use` blocks, the Responses API's function and custom calls. */
function calledTools(fixture: AgentFixture, text: string): string[] {
  if (fixture.agent === 'claude-code') {
    return events(text).flatMap((event) => {
      const block = event.content_block as { type?: string; name?: string } | undefined;
      return event.type === 'content_block_start' && block?.type === 'tool_use' ? [block.name!] : [];
    });
  }
  const completed = events(text).find((event) => event.type === 'response.completed');
  const output = (completed?.response as { output?: Array<{ type: string; name?: string }> })?.output ?? [];
  return output.filter((item) => item.type.endsWith('call')).map((item) => item.name!);
}

function customInputs(text: string): string[] {
  const completed = events(text).find((event) => event.type === 'response.completed');
  const output = (completed?.response as { output?: Array<{ type: string; input?: string }> })?.output ?? [];
  return output.filter((item) => item.type === 'custom_tool_call').map((item) => item.input!);
}

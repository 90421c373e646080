import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAgentFixtures } from '../agents/agent-fixtures.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * The exact requests Claude Code and Codex send with their default settings (captured from real runs, issue 35:
 * `test/fixtures/agents/`), replayed through the dialect routes of `serve --mock` on a Claude, an OpenAI and a Gemini
 * model each: every one is taken and answered whole. The simulator stands in for each model's provider after that
 * provider's own request conversion, so a validator or a converter that refuses one of them fails here, without the
 * agents installed.
 */
const fixtures = readAgentFixtures();
const MODELS = { claude: 'claude-sonnet-5-5', openai: 'gpt-5.1', gemini: 'gemini-2.5-flash' };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ mock: true });
});
afterAll(() => server.stop());

it('has the requests of both agents on every model family', () => {
  const stored = fixtures.map((fixture) => `${fixture.agent}/${fixture.family}`).sort();
  expect(stored).toEqual([
    'claude-code/claude',
    'claude-code/gemini',
    'claude-code/openai',
    'codex/claude',
    'codex/gemini',
    'codex/openai',
  ]);
});

describe.each(fixtures)('$agent $version as sent to a $family model', (fixture) => {
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
    });
  }
});

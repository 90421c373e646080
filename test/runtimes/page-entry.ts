/** The scenario in a browser page: the fake providers are reached through the page's own origin (`/fake/…`). */
import * as switchyard from 'switchyard-llm';
import { runScenario } from './scenario.ts';

const { origin } = (globalThis as unknown as { location: { origin: string } }).location;
const base = (name: string) => `${origin}/fake/${name}${name === 'openai' ? '/v1' : ''}`;
const rows = await runScenario(switchyard, {
  openai: base('openai'),
  anthropic: base('anthropic'),
  gemini: base('gemini'),
}).catch((error: Error) => [{ check: 'scenario', ok: false, detail: `${error.name}: ${error.message}` }]);
await fetch('/result', { method: 'POST', body: JSON.stringify(rows) });

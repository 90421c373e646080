import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Experiment } from '../../src/experiments/experiment.ts';
import type { Experiments } from '../../src/experiments/experiments-api.ts';
import { createGateway } from '../../src/index.ts';
import { ApiKeyStore, createSwitchyardHandler, defaultHostPolicy } from '../../src/server/index.ts';
import {
  MAX_OUTPUT_CHARS,
  renderExperimentList,
  renderExperimentPage,
} from '../../src/server/page/render-experiment.ts';
import { HttpError } from '../../src/server/responses.ts';
import { decodePng } from './decode-png.ts';
import { experimentFixture, HOSTILE } from './experiment-page-fixture.ts';
import { startTestServer } from './start-test-server.ts';

/** The page's text as a reader sees it: tags dropped, entities decoded, spaces folded. */
function text(page: string): string {
  return page
    .replace(/<style>[\s\S]*?<\/style>/, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/\s+/g, ' ');
}

describe('renderExperimentPage', () => {
  const page = renderExperimentPage(experimentFixture(), { mock: true });

  it('shows the header, versions as columns and inputs as rows', () => {
    const shown = text(page);
    expect(shown).toContain('Quote prompt v2');
    expect(shown).toContain('Agent quoter · exp_0193a · completed · spent $0.0042 (budget $1.00)');
    expect(page.match(/<th class="version"/g)).toHaveLength(2);
    expect(shown).toMatch(/baseline gpt-4o-latest quoter:production#3/);
    expect(page.match(/<tr class="input-row">/g)).toHaveLength(2);
    expect(shown).toContain('item=lamp from call_src1');
    expect(shown).toContain('chair order');
    expect(page).toContain('<span class="badge">simulator</span>');
  });

  it('lists structured outputs as fields and marks the differing ones, in text as well as colour', () => {
    expect(page.match(/<li class="field differs"/g)).toHaveLength(2);
    const shown = text(page);
    expect(shown).toContain('≠ quote.price = 12');
    expect(shown).toContain('≠ quote.price = 15');
    expect(shown).not.toContain('≠ quote.price = 40');
    expect(shown).toContain('quote.item = "lamp"');
    expect(shown).not.toContain('≠ quote.item');
    expect(shown).toContain('$0.0011 · 420 ms');
    expect(shown).toContain('✓ valid');
  });

  it('shows a failed cell’s error, annotations and a totals row per version', () => {
    const shown = text(page);
    expect(shown).toContain('failed upstream_timeout: The provider did not answer in time.');
    expect(shown).toContain('accuracy=0.5 too expensive (quote.price)');
    expect(shown).toContain('Totals 2 completed · 0 failed · 0 pending $0.0023 p50/p90/p99 380/420/420 ms');
    expect(shown).toContain('120 + 40 tokens valid 2/2 accuracy avg 0.75 (n=2)');
    expect(shown).toContain('1 completed · 1 failed · 0 pending $0.0019');
  });

  it('escapes every value and has no script', () => {
    expect(page).not.toContain('<img');
    expect(page).not.toContain('<script');
    expect(page).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(text(page)).toContain(HOSTILE);
  });

  it('cuts a long output with an ellipsis', () => {
    const experiment = experimentFixture();
    experiment.cells[3] = { ...experiment.cells[3]!, status: 'completed', error: null, output: 'x'.repeat(50_000) };
    const long = renderExperimentPage(experiment);
    expect(long).toContain(`${'x'.repeat(MAX_OUTPUT_CHARS - 1)}…`);
    expect(long).not.toContain('x'.repeat(MAX_OUTPUT_CHARS));
    expect(long.length).toBeLessThan(20_000);
  });

  it('lists experiments, each a link to its page', () => {
    const { id, agent_id, title, description, budget_usd, author, created_at } = experimentFixture();
    const header = { id, agent_id, title, description, budget_usd, author, created_at };
    const list = renderExperimentList({ object: 'list', data: [{ ...header, title: HOSTILE }], next_cursor: 'c/2' });
    expect(list).toContain('<a href="/experiments/exp_0193a">&#60;img');
    expect(list).toContain('href="/experiments?cursor=c%2F2"');
    expect(list).not.toContain('<img');
  });
});

/** `gateway.experiments` answering with the fixture: the routes' caller and 404, whatever the engine does. */
function fixtureExperiments(seen: unknown[]): Experiments {
  const fail = () => Promise.reject(new Error('not used'));
  return {
    create: fail,
    addVersions: fail,
    addInputs: fail,
    run: fail,
    async get(id, _options, caller) {
      seen.push(caller);
      if (id !== 'exp_0193a') throw new HttpError(404, `No experiment "${id}".`);
      return experimentFixture();
    },
    async list(_query, caller) {
      seen.push(caller);
      const { versions, inputs, cells, summaries, comparisons, annotations, ...header } = experimentFixture();
      return { object: 'list', data: [header], next_cursor: null };
    },
  };
}

describe('the experiment routes', () => {
  function setup(publicPage: boolean) {
    const gateway = createGateway({ mock: true });
    const seen: unknown[] = [];
    Object.defineProperty(gateway, 'experiments', { value: fixtureExperiments(seen), configurable: true });
    const keys = new ApiKeyStore(':memory:');
    const handler = createSwitchyardHandler({
      gateway,
      keys,
      mock: true,
      publicPage,
      hostPolicy: defaultHostPolicy('127.0.0.1', 8787),
    });
    const get = (path: string, headers: Record<string, string> = {}) =>
      handler(new Request(`http://127.0.0.1:8787${path}`, { headers: { host: '127.0.0.1:8787', ...headers } }));
    return { keys, get, seen };
  }

  it('serves the list and one experiment as HTML under the page’s CSP, a missing one as a 404 page', async () => {
    const { get, seen } = setup(true);
    const list = await get('/experiments');
    expect(list.status).toBe(200);
    expect(list.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await list.text()).toContain('href="/experiments/exp_0193a"');
    const one = await get('/experiments/exp_0193a');
    expect(one.status).toBe(200);
    expect(one.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(text(await one.text())).toContain('≠ quote.price = 15');
    const missing = await get('/experiments/exp_nope');
    expect(missing.status).toBe(404);
    expect(text(await missing.text())).toContain('No experiment “exp_nope” that this key reads.');
    expect(seen).toEqual([undefined, undefined, undefined]);
  });

  it('needs a key off loopback, and passes the key’s rules to gateway.experiments', async () => {
    const { get, keys, seen } = setup(false);
    expect((await get('/experiments/exp_0193a')).status).toBe(401);
    const grant = { scopes: ['calls:read:own' as const], allowed_agents: null, allowed_models: null, expires_at: null };
    const { key, info } = await keys.create('reader', { grant });
    const page = await get('/experiments/exp_0193a', { authorization: `Bearer ${key}` });
    expect(page.status).toBe(200);
    const caller = seen[0] as { keyId?: string; experimentScope?: () => Promise<unknown> };
    expect(caller.keyId).toBe(info.id);
    expect(await caller.experimentScope?.()).toEqual({ api_key_ids: [info.id] });
  });
});

const CHROMIUM = '/usr/bin/chromium';
// Locally a missing Chromium skips these; in CI (CI set) they must run, and fail without Chromium.
const skip = !existsSync(CHROMIUM) && !process.env.CI;

const quoteSchema = (price: number) => ({
  type: 'object' as const,
  properties: {
    quote: {
      type: 'object',
      properties: { item: { type: 'string', const: 'item' }, price: { type: 'number', examples: [price] } },
      required: ['item', 'price'],
      additionalProperties: false,
    },
    currency: { type: 'string', const: 'EUR' },
  },
  required: ['quote', 'currency'],
  additionalProperties: false,
});

/** An experiment made and run through `gateway.experiments`: 2 versions whose schemas answer different prices. */
async function runExperiment(experiments: Experiments): Promise<Experiment> {
  const messages = [{ role: 'user' as const, content: 'Quote a {{item}}.' }];
  const created = await experiments.create({
    agent_id: 'quoter',
    title: 'Quote prompt v2',
    // Above the cells' worst cost (their max tokens at the models' prices), so that none is skipped.
    budget_usd: 20,
    versions: [
      { label: 'baseline', model: 'gpt-4o-latest', messages, output_schema: { json_schema: quoteSchema(12) } },
      { label: HOSTILE, model: 'claude-sonnet-4-5', messages, output_schema: { json_schema: quoteSchema(15) } },
    ],
    inputs: [
      { label: 'lamp order', variables: { item: 'lamp' } },
      { label: 'chair order', variables: { item: 'chair' } },
    ],
  });
  return experiments.run(created.id);
}

describe.skipIf(skip)('the experiment page in Chromium', () => {
  it('shows versions as columns, a row per input, the differing field marked and the totals', async () => {
    const test = await startTestServer();
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-browser-'));
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    try {
      const experiment = await runExperiment(test.server.gateway.experiments);
      expect(experiment.cells.map((cell) => cell.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
      const annotated = experiment.cells[2]!;
      await test.server.gateway.annotations.add({
        target: { experiment_id: experiment.id, cell_id: annotated.id },
        key_path: 'quote.price',
        text: 'too expensive',
        metric: { name: 'accuracy', value: 0.5 },
      });
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const problems: string[] = [];
      page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
      page.on('pageerror', (error) => problems.push(error.message));
      expect((await page.goto(`${test.url}/experiments`))?.status()).toBe(200);
      await page.getByRole('link', { name: 'Quote prompt v2' }).click();
      expect(page.url()).toBe(`${test.url}/experiments/${experiment.id}`);

      const matrix = page.locator('table.matrix');
      expect(await matrix.locator('th.version .version-label').allInnerTexts()).toEqual(['baseline', HOSTILE]);
      expect(await matrix.locator('tbody tr.input-row .input-label').allInnerTexts()).toEqual([
        'lamp order',
        'chair order',
      ]);
      const differs = matrix.locator('li.differs');
      expect(await differs.allInnerTexts()).toEqual([
        '≠ quote.price = 12',
        '≠ quote.price = 15',
        '≠ quote.price = 12',
        '≠ quote.price = 15',
      ]);
      // Highlighted: a background of its own, not only the marker.
      const background = await differs.first().evaluate((element) => {
        const view = globalThis as unknown as { getComputedStyle(element: unknown): { backgroundColor: string } };
        return view.getComputedStyle(element).backgroundColor;
      });
      expect(background).not.toBe('rgba(0, 0, 0, 0)');
      expect(await matrix.locator(`td[data-cell="${annotated.id}"] li.annotation`).allInnerTexts()).toEqual([
        'accuracy=0.5 too expensive (quote.price)',
      ]);
      const totals = await matrix.locator('tr.totals td').allInnerTexts();
      expect(totals).toHaveLength(2);
      for (const cell of totals)
        expect(cell).toMatch(/^2 completed · 0 failed · 0 pending\n\$[\d.]+\np50\/p90\/p99 \d+\/\d+\/\d+ ms\n/);
      const visible = await page.locator('body').textContent();
      expect(visible).toContain('Agent quoter');
      expect(visible).toContain('valid 2/2');
      expect(visible).toContain('accuracy avg 0.5 (n=1)');
      expect(problems).toEqual([]);

      const file = join(dir, 'experiment-page.png');
      await matrix.screenshot({ path: file });
      // EXPERIMENT_PAGE_PNG=<file> keeps a full-page screenshot to look at.
      if (process.env.EXPERIMENT_PAGE_PNG)
        await page.screenshot({ path: process.env.EXPERIMENT_PAGE_PNG, fullPage: true });
      const png = readFileSync(file);
      expect(png.length).toBeGreaterThan(5 * 1024);
      const image = decodePng(png);
      expect(image.width).toBeGreaterThan(400);
      expect(image.height).toBeGreaterThan(150);
    } finally {
      await browser.close();
      await test.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { decodePng } from './decode-png.ts';
import { startTestServer } from './start-test-server.ts';

const CHROMIUM = '/usr/bin/chromium';
// Locally a missing Chromium skips this file; in CI (CI set) it must run, and fails without Chromium.
const skip = !existsSync(CHROMIUM) && !process.env.CI;

describe.skipIf(skip)('the workflow page in Chromium', () => {
  it('shows the agents, a waterfall with a bar per call and the daily cost, as a real image', async () => {
    const test = await startTestServer();
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-browser-'));
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const client = test.openai();
      for (const agent of ['planner', 'researcher', 'researcher', 'writer']) {
        await client.chat.completions.create({
          model: agent === 'writer' ? 'claude-sonnet-4-5' : 'gpt-4o-latest',
          messages: [{ role: 'user', content: `step of ${agent}` }],
          metadata: { agent_id: agent, trace_id: 'browser-run-1', workflow_name: 'market-report' },
        });
      }
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      const problems: string[] = [];
      page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
      page.on('pageerror', (error) => problems.push(error.message));
      const response = await page.goto(`${test.url}/`);
      expect(response?.status()).toBe(200);

      const agents = await page.locator('table.agents').textContent();
      for (const agent of ['planner', 'researcher', 'writer']) expect(agents).toContain(agent);
      expect(await page.locator('body').textContent()).toContain('market-report');
      const bars = page.locator('svg.waterfall rect.bar');
      expect(await bars.count()).toBe(4);
      for (const box of await Promise.all((await bars.all()).map((bar) => bar.boundingBox())))
        expect(box!.width).toBeGreaterThan(0);
      expect(await page.locator('svg.daily-cost rect.cost-bar').count()).toBeGreaterThan(0);
      expect(problems).toEqual([]);

      const file = join(dir, 'workflow-page.png');
      await page.screenshot({ path: file, fullPage: true });
      const png = readFileSync(file);
      expect(png.length).toBeGreaterThan(10 * 1024);
      const image = decodePng(png);
      const colours = new Set<string>();
      for (let y = 0; y < image.height; y += 5)
        for (let x = 0; x < image.width; x += 5) colours.add(image.pixel(x, y).join(','));
      // Text, table rules and several bar colours: far from a blank or single-colour page.
      expect(colours.size).toBeGreaterThan(20);
    } finally {
      await browser.close();
      await test.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

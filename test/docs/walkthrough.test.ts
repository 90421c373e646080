import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { postgresBinaries, startPostgres, type ThrowawayPostgres } from '../helpers/postgres.ts';
import { startRedis, type ThrowawayRedis } from '../helpers/redis.ts';
import { type DocsWorld, root, startDocsWorld } from './docs-world.ts';
import { type CodeBlock, codeBlocks } from './markdown-blocks.ts';
import { type BlockResult, run } from './run-block.ts';

/**
 * docs/deploy.md's replicas walkthrough as a reader runs it: its `walkthrough` steps in order in one bash, with the
 * package's `switchyard` on PATH (built, as the install step's `npm install -g` puts it there) and `serve` left
 * running, against a throwaway PostgreSQL and Redis (skipped only outside CI when they are not installed). The first
 * step installs them as root and is shown only: the test provides what it installs and exports instead. The docs'
 * ports 8787 and 8788 become free ones.
 */
const page = 'docs/deploy.md';
const blocks = codeBlocks(join(root, page), page);
const steps = blocks.filter((block) => block.walkthrough);
const SCRIPT_TIMEOUT_MS = 90_000;
const installed = postgresBinaries() !== undefined && existsSync('/usr/bin/redis-server');

describe(`${page}: the replicas walkthrough's steps`, () => {
  it('begin with the install, shown only, then run', () => {
    expect(steps[0]?.fragment, 'the first step installs the engines (shown only)').toBe(true);
    expect(steps.slice(1).filter((step) => step.fragment || step.lang !== 'sh')).toEqual([]);
    expect(steps.length).toBeGreaterThan(4);
  });

  it('export in the install step only what the test provides', () => {
    const exported = [...steps[0]!.code.matchAll(/^export (\w+)=/gm)].map((match) => match[1]);
    expect(exported.sort()).toEqual(['SWITCHYARD_DATABASE_URL', 'SWITCHYARD_REDIS_URL']);
  });
});

describe.skipIf(!installed && !process.env.CI)(`${page}: the replicas walkthrough`, () => {
  let postgres: ThrowawayPostgres | undefined;
  let redis: ThrowawayRedis | undefined;
  let world: DocsWorld | undefined;

  beforeAll(async () => {
    // One after the other: when the second fails to start, afterAll still stops the first.
    postgres = await startPostgres();
    redis = await startRedis();
    world = await startDocsWorld(blocks, { globalInstall: true });
    // The walkthrough makes its own admin key; the docs world's (in SQLite) must not stand in for it.
    delete world.env.SWITCHYARD_API_KEY;
    Object.assign(world.env, {
      SWITCHYARD_DATABASE_URL: postgres!.url,
      SWITCHYARD_REDIS_URL: redis!.url,
    });
  }, 120_000);

  afterAll(async () => {
    await world?.close();
    await Promise.all([postgres?.stop(), redis?.stop()]);
  });

  it(
    'runs as written: every step and every check in it passes, and the rate limit is shared',
    async () => {
      const result = await runSteps(steps.slice(1), world!);
      expect(result.ok, result.detail).toBe(true);
      // The page's own check is "fewer than 2 × 60"; the bucket is full at the start, so at least 60 passed.
      const passed = Number(/(\d+) calls passed, then 429/.exec(result.detail)?.[1]);
      expect(passed).toBeGreaterThanOrEqual(60);
      // The last step stopped both replicas itself, as a reader's shell would: each logged its shutdown.
      for (const log of ['replica-a.log', 'replica-b.log'])
        expect(readFileSync(join(world!.dir, log), 'utf8'), log).toContain('"msg":"shutting down"');
    },
    SCRIPT_TIMEOUT_MS + 10_000,
  );
});

/** The steps as one script on free ports; a failure names the step that failed and shows the replicas' logs. */
async function runSteps(script: CodeBlock[], world: DocsWorld): Promise<BlockResult> {
  const ports = new Map([
    ['8787', String(await freePort())],
    ['8788', String(await freePort())],
  ]);
  const body = script.map((step) => `echo '@@step ${step.file}:${step.line}'\n${step.code}`).join('\n');
  const file = join(world.dir, 'walkthrough.sh');
  writeFileSync(file, `set -eo pipefail\n${body.replace(/\b878[78]\b/g, (port) => ports.get(port)!)}`);
  const result = await run('bash', [file], world, SCRIPT_TIMEOUT_MS).finally(() => rmSync(file));
  if (result.ok) return result;
  const failed = [...result.detail.matchAll(/@@step (\S+)/g)].at(-1)?.[1] ?? 'before the first step';
  const logs = readdirSync(world.dir)
    .filter((name) => name.endsWith('.log'))
    .map((name) => `--- ${name}\n${readFileSync(join(world.dir, name), 'utf8').slice(-2000)}`);
  return { ok: false, detail: `failed in the step at ${failed}\n${result.detail}\n${logs.join('\n')}` };
}

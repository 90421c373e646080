import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.ts';
import { canMountTmpfs, fillUp } from '../helpers/tmpfs.ts';
import { readTable } from './serve-harness.ts';

/**
 * A real full disk: the data directory on a 4 MB tmpfs, filled up while the server runs. Mounting needs root (as
 * on this project's machines and CI); elsewhere the suite is skipped, and test/records/sqlite-sink-failures.test.ts
 * covers the same error through SQLite's own page limit.
 */
describe.runIf(canMountTmpfs())(
  'serve on a full disk: every call is answered, and every lost record is counted and reported',
  () => {
    const mountPoint = mkdtempSync(join(tmpdir(), 'switchyard-full-disk-'));
    const logs: Array<Record<string, unknown>> = [];
    const CALLS = 40;
    let server: RunningServer;
    let key: string;

    beforeAll(async () => {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint]);
      mkdirSync(join(mountPoint, 'data'));
      server = await startServer({
        port: 0,
        dataDir: join(mountPoint, 'data'),
        mock: true,
        log: (line) => logs.push(line),
      });
      ({ key } = await server.keys.create('disk-full'));
    });
    afterAll(async () => {
      await server?.close();
      execFileSync('umount', ['-l', mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    });

    it('answers 200, counts the records it could not store, and says why: "database or disk is full"', async () => {
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: key, maxRetries: 0 });
      await client.chat.completions.create({ model: 'gpt-4o-latest', messages: [{ role: 'user', content: 'before' }] });
      await server.gateway.flush();
      expect(server.gateway.recordStats).toMatchObject({ written: 1, failed: 0 });

      fillUp(join(mountPoint, 'filler'));
      for (let index = 0; index < CALLS; index++) {
        const answer = await client.chat.completions.create({
          model: 'gpt-4o-latest',
          messages: [{ role: 'user', content: `${index} ${'x'.repeat(20_000)}` }],
        });
        expect(answer.choices[0]!.message.content).toBeTruthy();
      }
      await server.gateway.flush();

      const stats = server.gateway.recordStats;
      console.log(`disk full: ${JSON.stringify(stats)}`);
      expect(stats.failed).toBeGreaterThan(0);
      expect(stats.written + stats.failed + stats.dropped).toBe(CALLS + 1);
      const health = (await (await fetch(`${server.url}/v1/health`)).json()) as {
        status: string;
        records: typeof stats;
      };
      expect(health).toMatchObject({ status: 'degraded', records: { failed: stats.failed, written: stats.written } });

      const warnings = logs.filter((line) => line.msg === 'call records could not be stored');
      // Once: the first failure, then at most once a minute.
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 'warn', error: expect.stringMatching(/database or disk is full/) });
      expect(JSON.stringify(logs)).not.toContain('cannot rollback');

      rmSync(join(mountPoint, 'filler'));
      await server.close();
      expect(logs.at(-1)).toMatchObject({
        msg: 'stopped',
        level: 'warn',
        records_written: stats.written,
        records_failed: stats.failed,
      });
      expect(readTable(join(mountPoint, 'data'), 'calls')).toHaveLength(stats.written);
    });
  },
);

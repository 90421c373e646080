import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Two projects: the whole suite (providers reached by the default wire transport), and, once more with every
 * provider on its official SDK (`SWITCHYARD_TRANSPORT=sdk`), what tells the two transports apart (issue 27's parity):
 * the parity test (every scenario on both, compared), the suites of the adapters that have both transports
 * (OpenAI and its family, Anthropic, Gemini), and the faults, malformed answers, deadlines and secrets, where the
 * SDKs' own errors, parsers, timers and headers are in play. Conversions are shared by both transports, and Azure
 * with Entra ID, Bedrock and Vertex use their SDKs either way: their suites run once, in the first project.
 */
/**
 * Node's compile cache for the processes the tests start (the CLI from source, `serve`, the docs' examples): their
 * TypeScript is stripped and compiled once, not again by every process, which was half of a CLI's start.
 */
const children = { NODE_COMPILE_CACHE: join(tmpdir(), 'switchyard-node-compile-cache') };

export default defineConfig({
  test: {
    pool: 'threads',
    // A worker per core: most files wait on child processes, servers and sockets more than they compute. (Vitest's
    // default keeps a core for itself: one worker on a two-core machine, which ran the suite file after file.)
    maxWorkers: Math.max(2, availableParallelism()),
    // Files of one worker share its module cache instead of importing src and the SDKs again each (issue 37: the
    // suite spent ~370 s of its workers' time importing). A file that changes global state (env, globals, timers)
    // restores it in its own afterEach/afterAll.
    isolate: false,
    testTimeout: 20_000,
    env: children,
    // One PostgreSQL server for the run, a database per file (test/helpers/postgres.ts). Run once, for the root;
    // both projects inherit what it provides.
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'wire', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'sdk',
          include: [
            'test/providers/transport-parity.test.ts',
            'test/providers/openai.test.ts',
            'test/providers/openai-compatible.test.ts',
            'test/providers/anthropic.test.ts',
            'test/providers/google.test.ts',
            'test/providers/header-secrets.test.ts',
            'test/reliability/fault-matrix.test.ts',
            'test/reliability/fault-matrix-in-process.test.ts',
            'test/reliability/malformed-answers.test.ts',
            'test/reliability/secrets.test.ts',
            'test/reliability/secrets-in-every-form.test.ts',
            'test/reliability/deadlines.test.ts',
          ],
          env: { ...children, SWITCHYARD_TRANSPORT: 'sdk' },
        },
      },
    ],
  },
});

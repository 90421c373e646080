import { defineConfig } from 'vitest/config';

/**
 * Two projects: the whole suite (providers reached by the default wire transport), and the provider suites once more
 * with every provider on its official SDK (`SWITCHYARD_TRANSPORT=sdk`), so both transports pass the same tests
 * against the same fake servers (issue 27's parity).
 */
export default defineConfig({
  test: {
    pool: 'threads',
    testTimeout: 20_000,
    projects: [
      { extends: true, test: { name: 'wire', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'sdk',
          include: [
            'test/providers/**/*.test.ts',
            'test/embeddings/**/*.test.ts',
            'test/reliability/fault-matrix.test.ts',
            'test/reliability/fault-matrix-in-process.test.ts',
            'test/reliability/malformed-answers.test.ts',
            'test/reliability/answer-fuzz.test.ts',
            'test/reliability/secrets.test.ts',
            'test/reliability/secrets-in-every-form.test.ts',
            'test/reliability/deadlines.test.ts',
            'test/simulator-parity.test.ts',
          ],
          env: { SWITCHYARD_TRANSPORT: 'sdk' },
        },
      },
    ],
  },
});

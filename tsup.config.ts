import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts', server: 'src/server/index.ts', cli: 'src/cli.ts' },
  format: ['esm', 'cjs'],
  dts: { entry: { index: 'src/index.ts', testing: 'src/testing/index.ts', server: 'src/server/index.ts' } },
  target: 'node22',
  // import.meta.url in the CommonJS build, for lazyRequire's createRequire.
  shims: true,
  platform: 'node',
  splitting: true,
  sourcemap: true,
  clean: true,
  // Provider SDKs stay external and are imported lazily by their adapters. tsup leaves out only `dependencies` and
  // `peerDependencies` by itself: the optional cloud SDKs must be named, or they would be bundled.
  external: [
    'openai',
    '@anthropic-ai/sdk',
    '@google/genai',
    '@anthropic-ai/vertex-sdk',
    '@aws-sdk/client-bedrock-runtime',
    'google-auth-library',
  ],
});

import { registerHooks } from 'node:module';

/**
 * Preloaded (`--import`) to stand for a runtime that lacks an API undici reads as it loads, as Node.js before 22.15
 * lacked `zlib.createZstdDecompress` (issue 35; such versions are now refused before undici loads, by the Node.js
 * floor). undici's agent module throws the TypeError such a runtime gives while loading.
 */
registerHooks({
  load(url, context, next) {
    if (!url.endsWith('/node_modules/undici/lib/dispatcher/agent.js')) return next(url, context);
    return {
      format: 'commonjs',
      shortCircuit: true,
      source: 'throw new TypeError("Cannot read properties of undefined (reading \'bind\')");',
    };
  },
});

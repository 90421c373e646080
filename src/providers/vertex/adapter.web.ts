/**
 * The web build's Vertex AI adapter (tsup.web.ts swaps it for adapter.ts): Vertex is reached with Google's auth
 * library and SDKs (service accounts, metadata server), which the web build leaves out; the call says so.
 */
import { RuntimeUnsupportedError, runtimeName } from '../../internal/node-builtin.ts';
import type { Provider } from '../provider.ts';

export async function createVertexProvider(): Promise<Provider> {
  throw new RuntimeUnsupportedError(
    `Vertex AI needs google-auth-library and Google's SDKs, which switchyard's web build (loaded by ` +
      `${runtimeName()}) leaves out: call it from Node.js, Bun or Deno, or through a switchyard serve.`,
  );
}

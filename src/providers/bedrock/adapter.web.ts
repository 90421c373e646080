/**
 * The web build's Bedrock adapter (tsup.web.ts swaps it for adapter.ts): Bedrock is reached through the AWS SDK
 * (SigV4 signing, the credential chain), which the web build leaves out; the call says so, naming the runtime.
 */
import { RuntimeUnsupportedError, runtimeName } from '../../internal/node-builtin.ts';
import type { Provider } from '../provider.ts';

export async function createBedrockProvider(): Promise<Provider> {
  throw new RuntimeUnsupportedError(
    `Amazon Bedrock needs the AWS SDK, which switchyard's web build (loaded by ${runtimeName()}) leaves out: call ` +
      'it from Node.js, Bun or Deno, or through a switchyard serve.',
  );
}

/**
 * Test helpers: the simulator, scriptable per call, so agents can be unit-tested without network; and cassettes,
 * which record real provider traffic once and replay it in later runs.
 *
 * ```ts
 * const mock = createMockProvider({ replies: ['first answer', { error: { status: 429 } }] });
 * const gateway = createGateway({ mock });
 * ```
 * @module
 */
import { MockProvider, type MockProviderOptions } from '../providers/mock/simulator.ts';

export type {
  MockFailure,
  MockMessage,
  MockProviderOptions,
  MockReply,
  MockRequest,
} from '../providers/mock/simulator.ts';
export { MockProvider } from '../providers/mock/simulator.ts';
export { exampleFromSchema } from '../structured-output/example-from-schema.ts';
export type {
  Cassette,
  CassetteFile,
  CassetteInteraction,
  CassetteMode,
  CassetteOptions,
  CassetteRequest,
  CassetteResponse,
} from './cassette.ts';
export { CASSETTE_REPLAY_KEY, CassetteMismatchError, createCassette } from './cassette.ts';

/** A simulator to hand to `createGateway({ mock })`: replies from a queue, a function, or the default simulation. */
export function createMockProvider(options?: MockProviderOptions): MockProvider {
  return new MockProvider(options);
}

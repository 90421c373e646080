import type { EmbeddingCall } from '../embedding-api.ts';
import { lazyMedia } from '../media-api.ts';
import type { Provider, ProviderDefinition } from '../provider.ts';
import type { MockProvider } from './simulator.ts';

/**
 * The simulator in the place of one provider: the provider's own request conversion runs first (its warnings, its
 * refusals of content it cannot take), then the simulator answers instead of the network. What the pipeline
 * decides before (native or prompted structured output, gated parameters) it decides as for that provider.
 */
export function standIn(simulator: MockProvider, definition: ProviderDefinition | undefined): Provider {
  // Only the media APIs the provider has; the conversion that gives its warnings loads with the first media call.
  const media = definition?.capabilities.media;
  return {
    name: simulator.name,
    async complete(call) {
      return simulator.complete(call, await definition?.convertRequest?.(call, false));
    },
    async stream(call) {
      return simulator.stream(call, await definition?.convertRequest?.(call, true));
    },
    // Only where the provider itself has embeddings: the simulator stands in, it does not add an API.
    ...(definition?.capabilities.embeddings ? { embed: (call: EmbeddingCall) => simulator.embed(call) } : {}),
    ...(media
      ? { media: lazyMedia(async () => (await import('./media-stand-in.ts')).mediaOf(simulator.media, media)) }
      : {}),
  };
}

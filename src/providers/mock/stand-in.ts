import type { MediaApi } from '../media-api.ts';
import type { EmbeddingCall, Provider, ProviderDefinition } from '../provider.ts';
import type { MockProvider } from './simulator.ts';

/**
 * The simulator in the place of one provider: the provider's own request conversion runs first (its warnings, its
 * refusals of content it cannot take), then the simulator answers instead of the network. What the pipeline
 * decides before (native or prompted structured output, gated parameters) it decides as for that provider.
 */
export function standIn(simulator: MockProvider, definition: ProviderDefinition | undefined): Provider {
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
    ...(definition?.capabilities.media ? { media: mediaOf(simulator.media, definition.capabilities.media) } : {}),
  };
}

/** The simulator's media APIs that the provider has, and only those. */
function mediaOf(media: Required<MediaApi>, apis: ReadonlyArray<keyof MediaApi>): MediaApi {
  return Object.fromEntries(apis.map((api) => [api, media[api]]));
}

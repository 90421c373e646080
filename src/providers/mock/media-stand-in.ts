import type { ImageBody, MediaApi, MediaCall, MediaCapabilities } from '../media-api.ts';

/**
 * The simulator's media in the place of one provider: an images call runs the provider's conversion first, for the
 * warnings the provider would give. The gateway asks it only for the APIs the provider declares
 * (`capabilities.media.apis`), as it asks the provider itself.
 */
export function mediaOf(media: Required<MediaApi>, capabilities: MediaCapabilities): Required<MediaApi> {
  const converted = async (call: MediaCall<ImageBody>) => {
    await capabilities.convertImage?.(call);
  };
  return {
    ...media,
    generateImage: async (call) => (await converted(call), media.generateImage(call)),
    editImage: async (call) => (await converted(call), media.editImage(call)),
  };
}

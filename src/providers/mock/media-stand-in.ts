import type { ImageBody, MediaApi, MediaCall, MediaCapabilities, SpeechBody } from '../media-api.ts';

/**
 * The simulator's media in the place of one provider: an images or speech call runs the provider's conversion first,
 * for the warnings the provider would give. The gateway asks it only for the APIs the provider declares
 * (`capabilities.media.apis`), as it asks the provider itself.
 */
export function mediaOf(media: Required<MediaApi>, capabilities: MediaCapabilities): Required<MediaApi> {
  const converted = async (call: MediaCall<ImageBody>) => {
    await capabilities.convertImage?.(call);
  };
  return {
    ...media,
    generateImage: async (call) => {
      await converted(call);
      return media.generateImage(call);
    },
    editImage: async (call) => {
      await converted(call);
      return media.editImage(call);
    },
    createSpeech: async (call) => {
      if (!capabilities.convertSpeech) return media.createSpeech(call);
      // A format the provider's conversion already said it answers otherwise is not said again by the simulator.
      let formatSaid = false;
      const warn: MediaCall<SpeechBody>['warn'] = (warning) => {
        if (warning.param === 'response_format') formatSaid = true;
        call.warn(warning);
      };
      await capabilities.convertSpeech({ ...call, warn });
      return media.createSpeech(formatSaid ? { ...call, body: { ...call.body, response_format: 'wav' } } : call);
    },
  };
}

import type { MediaModel } from './media-schema.ts';

/**
 * Image models of xAI and Together. No price here is read from the provider's own pricing page yet:
 * each is `null`, and a call's cost is `null` with a `price_unknown` warning until one is.
 */
export const PARTNER_IMAGE_MODELS: readonly MediaModel[] = [
  {
    id: 'grok-imagine-image',
    name: 'Grok Imagine Image',
    maker: 'xai',
    kind: 'image',
    modalities: { input: ['text'], output: ['image'] },
    providers: [{ provider: 'xai', model: 'grok-imagine-image', pricing: null, source: null }],
  },
  {
    id: 'black-forest-labs/FLUX.1-schnell',
    name: 'FLUX.1 [schnell]',
    maker: 'black-forest-labs',
    kind: 'image',
    modalities: { input: ['text'], output: ['image'] },
    providers: [{ provider: 'together', model: 'black-forest-labs/FLUX.1-schnell', pricing: null, source: null }],
  },
];

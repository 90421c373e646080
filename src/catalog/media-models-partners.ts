import type { MediaModel } from './media-schema.ts';

/**
 * Image models of xAI, Together and Amazon Bedrock. No price here is read from the provider's own pricing page yet:
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
  {
    id: 'amazon.nova-canvas-v1:0',
    name: 'Amazon Nova Canvas',
    maker: 'amazon',
    kind: 'image',
    modalities: { input: ['text'], output: ['image'] },
    providers: [{ provider: 'bedrock', model: 'amazon.nova-canvas-v1:0', pricing: null, source: null }],
  },
  {
    id: 'amazon.titan-image-generator-v2:0',
    name: 'Amazon Titan Image Generator G1 v2',
    maker: 'amazon',
    kind: 'image',
    modalities: { input: ['text'], output: ['image'] },
    providers: [{ provider: 'bedrock', model: 'amazon.titan-image-generator-v2:0', pricing: null, source: null }],
  },
];

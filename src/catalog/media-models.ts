import { PARTNER_IMAGE_MODELS } from './media-models-partners.ts';
import type { MediaModel } from './media-schema.ts';

/**
 * The media catalog: image, speech and transcription models, their modalities and prices in their own units, and
 * where each price was read (`null` prices: not known, flagged at call time). TypeScript rather than JSON so that a
 * bundle that never lists media models leaves it out (a JSON module is parsed where it is imported).
 */
export const MEDIA_CATALOG_UPDATED = '2026-11-28';

export const MEDIA_MODELS: readonly MediaModel[] = [
  {
    id: 'gpt-image-1-mini',
    name: 'GPT Image 1 mini',
    maker: 'openai',
    kind: 'image',
    modalities: {
      input: ['text', 'image'],
      output: ['image'],
    },
    providers: [
      {
        provider: 'openai',
        model: 'gpt-image-1-mini',
        pricing: {
          tokens: { text_input: 2, image_input: 2.5, output: 8 },
          per_image: {
            low: { '1024x1024': 0.005, '1024x1536': 0.006, '1536x1024': 0.006 },
            medium: { '1024x1024': 0.011, '1024x1536': 0.015, '1536x1024': 0.015 },
            high: { '1024x1024': 0.036, '1024x1536': 0.052, '1536x1024': 0.052 },
          },
        },
        source: 'https://developers.openai.com/api/docs/models/gpt-image-1-mini',
      },
    ],
  },
  {
    id: 'gpt-image-1',
    name: 'GPT Image 1',
    maker: 'openai',
    kind: 'image',
    modalities: {
      input: ['text', 'image'],
      output: ['image'],
    },
    providers: [
      {
        provider: 'openai',
        model: 'gpt-image-1',
        pricing: {
          tokens: { text_input: 5, image_input: 10, output: 40 },
          per_image: {
            low: { '1024x1024': 0.011, '1024x1536': 0.016, '1536x1024': 0.016 },
            medium: { '1024x1024': 0.042, '1024x1536': 0.063, '1536x1024': 0.063 },
            high: { '1024x1024': 0.167, '1024x1536': 0.25, '1536x1024': 0.25 },
          },
        },
        source: 'https://developers.openai.com/api/docs/models/gpt-image-1',
      },
    ],
  },
  {
    id: 'gpt-image-2',
    name: 'GPT Image 2',
    maker: 'openai',
    kind: 'image',
    modalities: { input: ['text', 'image'], output: ['image'] },
    providers: [{ provider: 'openai', model: 'gpt-image-2', pricing: null, source: null }],
  },
  {
    id: 'dall-e-3',
    name: 'DALL·E 3',
    maker: 'openai',
    kind: 'image',
    modalities: { input: ['text'], output: ['image'] },
    providers: [{ provider: 'openai', model: 'dall-e-3', pricing: null, source: null }],
  },
  {
    id: 'imagen-4.0-generate-001',
    name: 'Imagen 4',
    maker: 'google',
    kind: 'image',
    modalities: {
      input: ['text'],
      output: ['image'],
    },
    providers: [
      { provider: 'google', model: 'imagen-4.0-generate-001', pricing: null, source: null },
      { provider: 'vertex', model: 'imagen-4.0-generate-001', pricing: null, source: null },
    ],
  },
  {
    id: 'gemini-2.5-flash-image',
    name: 'Gemini 2.5 Flash Image',
    maker: 'google',
    kind: 'image',
    modalities: {
      input: ['text', 'image'],
      output: ['text', 'image'],
    },
    // "Output images up to 1024x1024px are tokenized as 1290 tokens" (https://ai.google.dev/gemini-api/docs/pricing).
    output_tokens_per_image: 1290,
    providers: [
      {
        provider: 'google',
        model: 'gemini-2.5-flash-image',
        // The same facts as its chat row (models.json): one price however the model is called.
        pricing: { tokens: { text_input: 0.3, image_input: 0.3, output: 30, text_output: 2.5 } },
        source: 'https://ai.google.dev/gemini-api/docs/pricing',
      },
      {
        provider: 'vertex',
        model: 'gemini-2.5-flash-image',
        // Vertex AI's offering as its chat row prices it (models.json, from models.dev's google-vertex): one price.
        pricing: { tokens: { text_input: 0.3, image_input: 0.3, output: 30, text_output: 2.5 } },
        source: 'https://models.dev/api.json',
      },
    ],
  },
  ...PARTNER_IMAGE_MODELS,
  {
    id: 'tts-1',
    name: 'TTS-1',
    maker: 'openai',
    kind: 'speech',
    modalities: {
      input: ['text'],
      output: ['audio'],
    },
    providers: [
      {
        provider: 'openai',
        model: 'tts-1',
        pricing: { characters: 15 },
        source: 'https://developers.openai.com/api/docs/models/tts-1',
      },
    ],
  },
  {
    id: 'tts-1-hd',
    name: 'TTS-1 HD',
    maker: 'openai',
    kind: 'speech',
    modalities: {
      input: ['text'],
      output: ['audio'],
    },
    providers: [
      {
        provider: 'openai',
        model: 'tts-1-hd',
        pricing: { characters: 30 },
        source: 'https://developers.openai.com/api/docs/models/tts-1-hd',
      },
    ],
  },
  {
    id: 'gpt-4o-mini-tts',
    name: 'GPT-4o mini TTS',
    maker: 'openai',
    kind: 'speech',
    modalities: {
      input: ['text'],
      output: ['audio'],
    },
    providers: [{ provider: 'openai', model: 'gpt-4o-mini-tts', pricing: null, source: null }],
  },
  // Gemini TTS bills text tokens in and audio tokens out (usageMetadata): `tokens` once read from Google's page.
  {
    id: 'gemini-2.5-flash-preview-tts',
    name: 'Gemini 2.5 Flash Preview TTS',
    maker: 'google',
    kind: 'speech',
    modalities: { input: ['text'], output: ['audio'] },
    providers: [{ provider: 'google', model: 'gemini-2.5-flash-preview-tts', pricing: null, source: null }],
  },
  {
    id: 'gemini-2.5-pro-preview-tts',
    name: 'Gemini 2.5 Pro Preview TTS',
    maker: 'google',
    kind: 'speech',
    modalities: { input: ['text'], output: ['audio'] },
    providers: [{ provider: 'google', model: 'gemini-2.5-pro-preview-tts', pricing: null, source: null }],
  },
  {
    id: 'whisper-1',
    name: 'Whisper',
    maker: 'openai',
    kind: 'transcription',
    modalities: {
      input: ['audio'],
      output: ['text'],
    },
    providers: [
      {
        provider: 'openai',
        model: 'whisper-1',
        pricing: { minute: 0.006 },
        source: 'https://developers.openai.com/api/docs/models/whisper-1',
      },
    ],
  },
  {
    id: 'gpt-4o-transcribe',
    name: 'GPT-4o Transcribe',
    maker: 'openai',
    kind: 'transcription',
    modalities: {
      input: ['audio', 'text'],
      output: ['text'],
    },
    context_window: 16_000,
    max_output_tokens: 2_000,
    providers: [
      {
        provider: 'openai',
        model: 'gpt-4o-transcribe',
        pricing: {
          tokens: { audio_input: 2.5, output: 10 },
        },
        source: 'https://developers.openai.com/api/docs/models/gpt-4o-transcribe',
      },
    ],
  },
  {
    id: 'gpt-4o-mini-transcribe',
    name: 'GPT-4o mini Transcribe',
    maker: 'openai',
    kind: 'transcription',
    modalities: {
      input: ['audio', 'text'],
      output: ['text'],
    },
    context_window: 16_000,
    max_output_tokens: 2_000,
    providers: [
      {
        provider: 'openai',
        model: 'gpt-4o-mini-transcribe',
        pricing: {
          tokens: { audio_input: 1.25, output: 5 },
        },
        source: 'https://developers.openai.com/api/docs/models/compare?model=gpt-4o-mini-transcribe',
      },
    ],
  },
  {
    id: 'whisper-large-v3',
    name: 'Whisper Large v3',
    maker: 'openai',
    kind: 'transcription',
    modalities: {
      input: ['audio'],
      output: ['text'],
    },
    providers: [{ provider: 'groq', model: 'whisper-large-v3', pricing: null, source: null }],
  },
];

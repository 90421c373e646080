/** What a media model takes in and gives out. */
export type Modality = 'text' | 'image' | 'audio';

/** Which media API a model answers: images (generations and edits), speech, or transcriptions. */
export type MediaKind = 'image' | 'speech' | 'transcription';

/**
 * A media offering's prices, each in its own unit (USD): per 1M tokens where the provider reports tokens, per image
 * by quality and size, per 1M input characters, per minute of audio. `null` on the offering: not known.
 */
export interface MediaPricing {
  /** Per 1M tokens, where the provider bills (and reports) tokens: gpt-image-*, gpt-4o-transcribe. */
  tokens?:
    | {
        text_input?: number;
        image_input?: number;
        audio_input?: number;
        output: number;
        /** Text tokens of an answer that reports them apart from its image tokens (Gemini), when billed otherwise. */
        text_output?: number;
      }
    | undefined;
  /** Per image, by quality (`low`, `medium`, `high`, `standard`, `hd`) then size (`1024x1024`). */
  per_image?: Record<string, Record<string, number>> | undefined;
  /** Per 1M input characters (text-to-speech). */
  characters?: number | undefined;
  /** Per minute of input audio (transcription), billed by the second. */
  minute?: number | undefined;
}

export interface MediaOffering {
  provider: string;
  model: string;
  pricing: MediaPricing | null;
  /** Where the prices were read; `null` with prices not known. */
  source: string | null;
}

/** A row of the media catalog (`src/catalog/media-models.json`). */
export interface MediaModel {
  id: string;
  name: string;
  maker: string;
  kind: MediaKind;
  modalities: { input: Modality[]; output: Modality[] };
  /** A token-billed model's most tokens one call takes in (audio and prompt) and gives out: what budgets hold. */
  context_window?: number;
  max_output_tokens?: number;
  /** A token-billed image model's output tokens an image (Gemini's 1,290 up to 1024×1024): what budgets hold. */
  output_tokens_per_image?: number;
  providers: MediaOffering[];
}

/** One row of `listModels().media`: a media model as `/v1/models` lists it, with its catalog facts. */
export interface MediaModelInfo extends MediaModel {
  object: 'model';
  owned_by: string;
}

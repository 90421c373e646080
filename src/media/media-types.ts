import type { SpeechCreateParams } from 'openai/resources/audio/speech';
import type { ImageEditParamsBase, ImageGenerateParamsBase, ImagesResponse } from 'openai/resources/images';
import type { MediaRecord } from '../records/call-record.ts';

export type { MediaKind, MediaModel, MediaOffering, MediaPricing, Modality } from '../catalog/media-schema.ts';

import type { SwitchyardResponseInfo } from '../types.ts';

/** What a media call was billed in: the units the provider reported (or that were counted), and their modality. */
export type MediaUsage = MediaRecord;

/** Switchyard's own fields, as on chat requests: attribution, and the models to fall back to. */
interface Attributed {
  metadata?: Record<string, string> | null | undefined;
  /** Models of the same kind tried, in order, after every provider of `model` failed. */
  fallbacks?: string[] | undefined;
}

/** OpenAI's `images.generate` body (`stream` is not served), plus `metadata`. */
export type ImageRequest = Omit<ImageGenerateParamsBase, 'model' | 'stream' | 'partial_images'> &
  Attributed & { model: string };

/** The bytes of one uploaded file: an image to edit, or audio to transcribe. */
export interface MediaFile {
  data: Uint8Array;
  /** The file's name as sent (`photo.png`), which providers read the format from. */
  name?: string | undefined;
  /** Its media type (`image/png`, `audio/wav`). */
  type?: string | undefined;
}

/** OpenAI's `images.edit` body with the images (and mask) as bytes. */
export type ImageEditRequest = Omit<ImageEditParamsBase, 'model' | 'image' | 'mask' | 'stream' | 'partial_images'> &
  Attributed & { model: string; image: MediaFile | MediaFile[]; mask?: MediaFile | undefined };

export type ImageResponse = ImagesResponse & { model: string; switchyard: SwitchyardResponseInfo };

/** OpenAI's `audio.speech.create` body, plus `metadata`. */
export type SpeechRequest = Omit<SpeechCreateParams, 'model' | 'stream_format'> & Attributed & { model: string };

/** The audio, in the format asked for (or the one the warnings say), with its media type. */
export interface SpeechResponse {
  audio: Uint8Array;
  content_type: string;
  /** The format the bytes are in (`mp3`, `wav`, …). */
  format: string;
  model: string;
  switchyard: SwitchyardResponseInfo;
}

/** OpenAI's `audio.transcriptions.create` body with the audio as bytes, plus `metadata`. */
export interface TranscriptionRequest extends Attributed {
  model: string;
  file: MediaFile;
  language?: string | undefined;
  prompt?: string | undefined;
  /** `json` (default), `text`, `srt`, `verbose_json`, `vtt`. */
  response_format?: 'json' | 'text' | 'srt' | 'verbose_json' | 'vtt' | undefined;
  temperature?: number | undefined;
  timestamp_granularities?: Array<'word' | 'segment'> | undefined;
}

/**
 * The transcription: `text` always; in `verbose_json` also the language, duration and segments; in `text`, `srt`
 * and `vtt` the body the caller asked for is `body` (its content type `content_type`).
 */
export interface TranscriptionResponse {
  text: string;
  language?: string | undefined;
  duration?: number | undefined;
  segments?: Array<{ id: number; start: number; end: number; text: string }> | undefined;
  usage?: Record<string, unknown> | undefined;
  /** The answer's body as the requested `response_format` has it: JSON for `json`/`verbose_json`, text otherwise. */
  body: string;
  content_type: string;
  model: string;
  switchyard: SwitchyardResponseInfo;
}

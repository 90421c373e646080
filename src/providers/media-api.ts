import type { ImagesResponse } from 'openai/resources/images';
import type { CompletionWarning } from '../types.ts';

/**
 * A provider's media APIs, where it has them (absent: the gateway says it has none). Bodies are OpenAI's, with the
 * provider's own model name; each adapter converts at its edge and reports what it dropped through `warn`.
 */
export interface MediaApi {
  generateImage?(call: MediaCall<ImageBody>): Promise<ImagesResponse>;
  editImage?(call: MediaCall<ImageEditBody>): Promise<ImagesResponse>;
  createSpeech?(call: MediaCall<SpeechBody>): Promise<ProviderSpeech>;
  transcribe?(call: MediaCall<TranscriptionBody>): Promise<ProviderTranscription>;
}

/** A provider's media APIs as its definition declares them (`capabilities.media`). */
export interface MediaCapabilities {
  readonly apis: ReadonlyArray<keyof MediaApi>;
  /**
   * The provider's conversion of an images body alone, for its warnings, sending nothing: the simulator runs it to
   * stand in faithfully (a parameter the provider drops is dropped with the same warning in mock mode).
   */
  convertImage?(call: MediaCall<ImageBody>): Promise<unknown>;
  /** The same for a speech body: its warnings (and refusals) in mock mode as the provider would give them. */
  convertSpeech?(call: MediaCall<SpeechBody>): Promise<unknown>;
}

export interface MediaCall<Body> {
  /** The provider's model name. */
  model: string;
  body: Body;
  signal: AbortSignal | undefined;
  warn(warning: CompletionWarning): void;
}

/** Bytes of a file sent to a provider. */
export interface FileBody {
  data: Uint8Array;
  name: string;
  type: string;
}

export interface ImageBody {
  prompt: string;
  n?: number | null | undefined;
  size?: string | null | undefined;
  quality?: string | null | undefined;
  style?: string | null | undefined;
  response_format?: 'url' | 'b64_json' | null | undefined;
  output_format?: string | null | undefined;
  output_compression?: number | null | undefined;
  background?: string | null | undefined;
  moderation?: string | null | undefined;
  user?: string | undefined;
  [other: string]: unknown;
}

export interface ImageEditBody extends ImageBody {
  image: FileBody[];
  mask?: FileBody | undefined;
}

export interface SpeechBody {
  input: string;
  voice: string | { id: string };
  instructions?: string | undefined;
  response_format?: string | undefined;
  speed?: number | undefined;
}

export interface TranscriptionBody {
  file: FileBody;
  language?: string | undefined;
  prompt?: string | undefined;
  response_format: 'json' | 'text' | 'srt' | 'verbose_json' | 'vtt';
  temperature?: number | undefined;
  timestamp_granularities?: Array<'word' | 'segment'> | undefined;
}

export interface ProviderSpeech {
  audio: Uint8Array;
  /** The format the bytes are in (`mp3`, `wav`, …) and its media type. */
  format: string;
  contentType: string;
  /** The tokens the provider reported, where it bills speech by tokens (Gemini): the text read and the audio made. */
  tokens?: { input_text: number; output_audio: number } | undefined;
}

/**
 * A transcription: `json` holds the provider's JSON answer (`json`, `verbose_json`), `text` its body otherwise
 * (`text`, `srt`, `vtt`). `seconds`: the audio's length, where the provider (or the file's header) says it.
 */
export interface ProviderTranscription {
  json?: { text: string; [field: string]: unknown } | undefined;
  text?: string | undefined;
  seconds?: number | undefined;
}

/**
 * Media APIs loaded on their first call (a dynamic import), so an adapter's media code stays out of the bundle that
 * loads the gateway.
 */
export function lazyMedia(load: () => Promise<Required<MediaApi>>): Required<MediaApi> {
  let loaded: Promise<Required<MediaApi>> | undefined;
  const names = ['generateImage', 'editImage', 'createSpeech', 'transcribe'] as const;
  // biome-ignore lint/suspicious/noExplicitAny: each name forwards its own call to the same name.
  const forward = (name: (typeof names)[number]) => async (call: any) => (await (loaded ??= load()))[name](call);
  return Object.fromEntries(names.map((name) => [name, forward(name)])) as Required<MediaApi>;
}

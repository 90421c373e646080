import type { ImagesResponse } from 'openai/resources/images';
import { roundUsd, type UsageLike } from '../records/compute-cost.ts';
import type { CompletionWarning, CostBreakdown } from '../types.ts';
import type { MediaModel, MediaPricing, MediaUsage } from './media-types.ts';

/** What a media call cost, by part, and the units it was billed in; `usd` is `null` when its price is not known. */
export interface MediaBill {
  usd: CostBreakdown | null;
  usage: MediaUsage;
}

const perMillion = (count: number, price: number | undefined) => (count * (price ?? 0)) / 1e6;

function breakdown(input: number, output: number): CostBreakdown {
  return { input: roundUsd(input), cache_read: 0, cache_write: 0, output: roundUsd(output), reasoning: 0 };
}

/**
 * Images: by the tokens the provider reported where it bills tokens (gpt-image-*), else per image by quality and
 * size. A size or quality the table has no row for (`auto`) is billed at its dearest row, said in a warning.
 */
export function imageBill(
  pricing: MediaPricing | null,
  answer: ImagesResponse,
  asked: { size?: string | null | undefined; quality?: string | null | undefined },
  warn: (warning: CompletionWarning) => void,
): MediaBill {
  const images = answer.data?.length ?? 0;
  const usage = answer.usage;
  // Tokens where they were reported; an answer counting no output tokens for its images is billed per image instead.
  if (pricing?.tokens && usage && (usage.output_tokens > 0 || images === 0)) {
    const text = usage.input_tokens_details?.text_tokens ?? usage.input_tokens;
    const image = usage.input_tokens_details?.image_tokens ?? 0;
    const units = { images, input_text_tokens: text, input_image_tokens: image, output_tokens: usage.output_tokens };
    const input = perMillion(text, pricing.tokens.text_input) + perMillion(image, pricing.tokens.image_input);
    // Text tokens beside the images are billed at the text rate where the model has one (never text at the image
    // rate's inverse: an answer's image tokens always at `output`).
    const textOut = pricing.tokens.text_output !== undefined ? (usage.output_tokens_details?.text_tokens ?? 0) : 0;
    const output =
      perMillion(usage.output_tokens - textOut, pricing.tokens.output) +
      perMillion(textOut, pricing.tokens.text_output);
    const usd = breakdown(input, output);
    return { usd, usage: { kind: 'image', modality: 'image', units } };
  }
  const bill: MediaBill = { usd: null, usage: { kind: 'image', modality: 'image', units: { images } } };
  if (!pricing?.per_image) return bill;
  const quality = answer.quality ?? asked.quality ?? undefined;
  const size = answer.size ?? asked.size ?? undefined;
  const row = quality && size ? pricing.per_image[quality]?.[size] : undefined;
  if (row === undefined) {
    warn({
      code: 'cost_estimated',
      message:
        `No price per image for quality ${quality ?? '(unsaid)'} and size ${size ?? '(unsaid)'}: each image is ` +
        'billed at the dearest listed.',
    });
  }
  return { ...bill, usd: breakdown(0, images * (row ?? dearestImage(pricing))) };
}

/** The dearest price of one image the table lists (0 when it has none). */
export function dearestImage(pricing: MediaPricing | null): number {
  const rows = Object.values(pricing?.per_image ?? {}).flatMap((sizes) => Object.values(sizes));
  return Math.max(0, ...rows);
}

/**
 * Speech: by the tokens the provider reported where it bills tokens (Gemini TTS: the text read at `text_input`, the
 * audio made at `output`), else per 1M input characters.
 */
export function speechBill(
  pricing: MediaPricing | null,
  characters: number,
  tokens?: { input_text: number; output_audio: number } | undefined,
): MediaBill {
  const counted = tokens ? { input_text_tokens: tokens.input_text, output_audio_tokens: tokens.output_audio } : {};
  const usage: MediaUsage = { kind: 'speech', modality: 'audio', units: { characters, ...counted } };
  if (pricing?.tokens && tokens) {
    const input = perMillion(tokens.input_text, pricing.tokens.text_input);
    return { usd: breakdown(input, perMillion(tokens.output_audio, pricing.tokens.output)), usage };
  }
  if (pricing?.characters === undefined) return { usd: null, usage };
  return { usd: breakdown(perMillion(characters, pricing.characters), 0), usage };
}

/**
 * Transcription: by the tokens the provider reported where it bills tokens (gpt-4o-transcribe), else per minute of
 * audio billed by the second (the duration the provider reported, or the file's own).
 */
export function transcriptionBill(
  pricing: MediaPricing | null,
  reported: { usage?: Record<string, unknown> | undefined; seconds?: number | undefined },
): MediaBill {
  const usage = reported.usage;
  if (usage?.type === 'tokens') {
    const details = usage.input_token_details as { audio_tokens?: number; text_tokens?: number } | undefined;
    const input = Number(usage.input_tokens) || 0;
    const audio = details?.audio_tokens ?? input;
    const text = details?.text_tokens ?? input - audio;
    const output = Number(usage.output_tokens) || 0;
    const units = { input_audio_tokens: audio, input_text_tokens: text, output_tokens: output };
    const media: MediaUsage = { kind: 'transcription', modality: 'text', units };
    if (!pricing?.tokens) return { usd: null, usage: media };
    const tokens = pricing.tokens;
    const cost = perMillion(audio, tokens.audio_input) + perMillion(text, tokens.text_input ?? tokens.audio_input);
    return { usd: breakdown(cost, perMillion(output, tokens.output)), usage: media };
  }
  const seconds = usage?.type === 'duration' ? Number(usage.seconds) : reported.seconds;
  const units: Record<string, number> = seconds === undefined ? {} : { seconds };
  const media: MediaUsage = { kind: 'transcription', modality: 'text', units };
  if (pricing?.minute === undefined || seconds === undefined || !Number.isFinite(seconds)) {
    return { usd: null, usage: media };
  }
  return { usd: breakdown((Math.ceil(seconds) / 60) * pricing.minute, 0), usage: media };
}

/**
 * A token-billed model's dearest call: its whole context at the dearer input rate and its most output. `null` (the
 * budgets hold nothing, said) when the catalog does not say how many tokens a call may take.
 */
export function mostTokensCost(pricing: MediaPricing | null, model: MediaModel | undefined): number | null {
  const tokens = pricing?.tokens;
  if (!tokens || model?.context_window === undefined || model.max_output_tokens === undefined) return null;
  const input = Math.max(tokens.audio_input ?? 0, tokens.text_input ?? tokens.audio_input ?? 0);
  return (model.context_window * input + model.max_output_tokens * tokens.output) / 1e6;
}

/**
 * The tokens a media call was billed in (its `*_tokens` units: input's and output's), as a completion's usage: what
 * its record's usage and a tokens-a-minute limit count. `undefined` for a call billed in images, characters or seconds.
 */
export function mediaTokenUsage(media: MediaUsage): UsageLike | undefined {
  let prompt = 0;
  let completion = 0;
  let counted = false;
  for (const [unit, amount] of Object.entries(media.units)) {
    if (!unit.endsWith('_tokens') || !Number.isFinite(amount)) continue;
    counted = true;
    if (unit.startsWith('output_')) completion += amount;
    else prompt += amount;
  }
  return counted ? { prompt_tokens: prompt, completion_tokens: completion } : undefined;
}

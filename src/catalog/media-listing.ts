import { mediaModelRows } from './media-catalog.ts';
import type { MediaModelInfo, Modality } from './media-schema.ts';

/**
 * The media rows `listModels()` carries beside the chat models (image, speech, transcription), optionally those giving
 * one modality. Where the web build runs (browsers, Workers) `media-listing.web.ts` stands in: there the media data
 * loads on first use (`gateway.listMediaModels()`), so a page that only chats does not carry it.
 */
export function mediaListing(output: Modality | undefined): MediaModelInfo[] | undefined {
  return mediaModelRows(output);
}

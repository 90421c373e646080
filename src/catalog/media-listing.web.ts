import type { MediaModelInfo, Modality } from './media-schema.ts';

/**
 * The web build's `listModels()` lists the chat models only: the media rows stay out of a page's bundle until
 * `gateway.listMediaModels()` loads them (docs/runtimes.md).
 */
export function mediaListing(_output: Modality | undefined): MediaModelInfo[] | undefined {
  return undefined;
}

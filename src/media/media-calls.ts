/** The media calls and listing, one module the gateway imports on the first media call (docs/media.md). */
export { mediaModelRows } from '../catalog/media-catalog.ts';
export { createImage, editImage } from './create-image.ts';
export { createSpeech } from './create-speech.ts';
export { createTranscription } from './create-transcription.ts';

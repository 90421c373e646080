import type { CompletionMessageParam, CompletionWarning } from '../types.ts';

/** A content part of a chat user message. */
export type UserPart = Exclude<Extract<CompletionMessageParam, { role: 'user' }>['content'], string>[number];

/**
 * The images and files of tool results, which a chat `tool` message cannot carry (text only, at every provider):
 * they are gathered here and sent in a user message after the last tool message of the run, since every tool message
 * must follow the assistant's calls directly. Each result's parts come under a line naming its call.
 */
export class MovedToolMedia {
  #parts: UserPart[] = [];

  /**
   * Keeps `media` (a result's images and files) to follow, with a warning at `at`; gives the text the tool message
   * keeps: its own, or a line saying where the rest went when it has none.
   */
  move(callId: string, text: string, media: UserPart[], at: string, warnings: CompletionWarning[]): string {
    if (media.length === 0) return text;
    this.#parts.push({ type: 'text', text: `From the result of tool call ${callId}:` }, ...media);
    const what = describe(media);
    warnings.push({
      code: 'converted_parameter',
      param: at,
      message:
        `A tool message carries text only: the ${what} of the result of tool call ${callId} went in a user ` +
        'message after the tool results.',
    });
    return text !== '' ? text : `(The result's ${what} follow in the next message.)`;
  }

  /** The parts moved since the last call, which go in the user message after the tool messages. */
  take(): UserPart[] {
    const parts = this.#parts;
    this.#parts = [];
    return parts;
  }
}

/** "1 image", "2 images and 1 file". */
function describe(media: UserPart[]): string {
  const images = media.filter((part) => part.type === 'image_url').length;
  const files = media.length - images;
  const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  return [images ? count(images, 'image') : '', files ? count(files, 'file') : ''].filter(Boolean).join(' and ');
}

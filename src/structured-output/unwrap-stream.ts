import { WRAPPER_PROPERTY } from './schema-root.ts';

const OPENING = new RegExp(`^\\s*\\{\\s*"${WRAPPER_PROPERTY}"\\s*:\\s*`);
const CLOSING = /\}\s*$/;

/**
 * Unwraps a streamed answer to a wrapped root (`{"value": X}`) as it passes, so the caller's content is X, as in
 * the non-streamed answer. The opening is held until it is complete, the last `}` until the stream goes on; an answer
 * that does not open with the wrapper passes unchanged.
 */
export class StreamUnwrapper {
  #state: 'opening' | 'inside' | 'unwrapped' = 'opening';
  #held = '';

  /** The part of the answer so far that the caller gets for this piece of content. */
  next(content: string): string {
    if (this.#state === 'unwrapped') return content;
    const text = this.#held + content;
    if (this.#state === 'opening') {
      const opening = OPENING.exec(text);
      if (!opening) {
        if (couldOpen(text)) {
          this.#held = text;
          return '';
        }
        this.#state = 'unwrapped';
        this.#held = '';
        return text;
      }
      this.#state = 'inside';
      this.#held = '';
      return this.next(text.slice(opening[0].length));
    }
    const closing = CLOSING.exec(text);
    this.#held = closing ? closing[0] : '';
    return closing ? text.slice(0, closing.index) : text;
  }
}

/** Whether the text so far may still become the wrapper's opening. */
function couldOpen(text: string): boolean {
  return `{"${WRAPPER_PROPERTY}":`.startsWith(text.replace(/\s+/g, ''));
}

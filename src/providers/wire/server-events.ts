/** One server-sent event: its `event:` name (absent when none was given) and its `data:` lines joined by `\n`. */
export interface ServerEvent {
  event: string | undefined;
  data: string;
}

/** What owns a body `serverEvents` reads: what a failed read becomes, and what to do once reading ends. */
export interface EventBody {
  failure(error: unknown): unknown;
  close(): unknown;
}

const LF = 10;
const CR = 13;
/** One options object for every decode, not one per network chunk. */
const STREAM = { stream: true };

/**
 * The events of a `text/event-stream` body, by the HTML standard's rules: lines end in LF, CRLF or CR (split across
 * chunks too); `:` lines are comments; a field without a colon has an empty value, one space after the colon is
 * dropped; an event is dispatched at a blank line and only if it had data; an event the body ends inside is dropped.
 * `id` and `retry` are read and ignored: a provider's stream is never resumed. `body`, when given, owns `chunks`: a
 * failed read throws its `failure`, and it is closed however the reading ends, here, so that no generator layer of
 * its own sits between the socket and the parser.
 */
export async function* serverEvents(chunks: AsyncIterable<Uint8Array>, body?: EventBody): AsyncGenerator<ServerEvent> {
  const decoder = new TextDecoder();
  let pending = '';
  let event: string | undefined;
  let data: string | undefined;
  let first = true;
  try {
    for await (const chunk of chunks) {
      pending += decoder.decode(chunk, STREAM);
      if (first && pending.length > 0) {
        first = false;
        if (pending.charCodeAt(0) === 0xfeff) pending = pending.slice(1);
      }
      let start = 0;
      // Providers end lines in LF alone: then each line is found with indexOf, not character by character.
      const lfOnly = pending.indexOf('\r') < 0;
      for (let index = lfOnly ? pending.indexOf('\n') : start; index >= 0 && index < pending.length; ) {
        const code = pending.charCodeAt(index);
        if (code !== LF && code !== CR) {
          index++;
          continue;
        }
        // A CR at the end of what arrived may be the first half of a CRLF: wait for the next chunk.
        if (code === CR && index === pending.length - 1) break;
        const line = pending.slice(start, index);
        if (code === CR && pending.charCodeAt(index + 1) === LF) index++;
        start = index + 1;
        index = lfOnly ? pending.indexOf('\n', start) : start;
        if (line === '') {
          if (data !== undefined) yield { event, data };
          event = undefined;
          data = undefined;
          continue;
        }
        const colon = line.indexOf(':');
        if (colon === 0) continue;
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.charCodeAt(0) === 32) value = value.slice(1);
        if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
        else if (field === 'event') event = value;
      }
      // Most network chunks end at an event's end: nothing left over to keep.
      pending = start === pending.length ? '' : pending.slice(start);
    }
  } catch (error) {
    throw body ? body.failure(error) : error;
  } finally {
    await body?.close();
  }
  // The body ended right after a CR that closed the last event.
  if (pending === '\r' && data !== undefined) yield { event, data };
}

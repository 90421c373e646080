import { describe, expect, it } from 'vitest';
import { type ServerEvent, serverEvents } from '../../src/providers/wire/server-events.ts';

/** The wire transport's SSE parser, by the HTML standard's rules, however the bytes are split. */
const encoder = new TextEncoder();

async function parse(chunks: Array<string | Uint8Array>): Promise<ServerEvent[]> {
  async function* body() {
    for (const chunk of chunks) yield typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
  }
  const events: ServerEvent[] = [];
  for await (const event of serverEvents(body())) events.push(event);
  return events;
}

describe('serverEvents', () => {
  it('reads data lines, event names, comments, and joins multi-line data with \\n', async () => {
    const text =
      ': a comment\n' +
      'event: message_start\ndata: {"a":1}\n\n' +
      'data: first\ndata: second\n\n' +
      'id: 7\nretry: 100\ndata:no space\n\n' +
      'event: ping\n\n' + // no data: not dispatched
      'data\n\n'; // a field without a colon: an empty value
    expect(await parse([text])).toEqual([
      { event: 'message_start', data: '{"a":1}' },
      { event: undefined, data: 'first\nsecond' },
      { event: undefined, data: 'no space' },
      { event: undefined, data: '' },
    ]);
  });

  it('takes LF, CRLF and CR line ends, a leading BOM, and drops an event the body ends inside', async () => {
    const text = '\uFEFFdata: a\r\n\r\ndata: b\r\rdata: c\n\ndata: cut off';
    expect(await parse([text])).toEqual([
      { event: undefined, data: 'a' },
      { event: undefined, data: 'b' },
      { event: undefined, data: 'c' },
    ]);
  });

  it('gives the same events however the bytes are split (CRLF and multi-byte characters across chunks)', async () => {
    const text = 'event: x\r\ndata: héllo ✓ 🎉\r\n\r\ndata: {"n":2}\n\n: c\r\ndata: last\r\n\r\n';
    const whole = await parse([text]);
    expect(whole).toHaveLength(3);
    const bytes = encoder.encode(text);
    for (let cut = 1; cut < bytes.length; cut++)
      expect(await parse([bytes.slice(0, cut), bytes.slice(cut)]), `cut at byte ${cut}`).toEqual(whole);
    expect(await parse([...bytes].map((byte) => Uint8Array.of(byte)))).toEqual(whole);
  });

  it('gives the same events however LF-only bytes are split (the lines found by indexOf)', async () => {
    const text = ': ping\nevent: delta\ndata: {"t":"à"}\n\ndata: one\ndata: two\n\ndata\n\ndata: [DONE]\n\n';
    const whole = await parse([text]);
    expect(whole).toEqual([
      { event: 'delta', data: '{"t":"à"}' },
      { event: undefined, data: 'one\ntwo' },
      { event: undefined, data: '' },
      { event: undefined, data: '[DONE]' },
    ]);
    const bytes = encoder.encode(text);
    for (let cut = 1; cut < bytes.length; cut++)
      for (const second of [cut + 1, bytes.length])
        expect(
          await parse([bytes.slice(0, cut), bytes.slice(cut, second), bytes.slice(second)]),
          `cut at bytes ${cut}, ${second}`,
        ).toEqual(whole);
  });

  it('dispatches an event whose closing blank line is a CR at the very end of the body', async () => {
    expect(await parse(['data: a\r', '\r'])).toEqual([{ event: undefined, data: 'a' }]);
  });

  it('closes a body it owns however the reading ends, and throws what a failed read becomes', async () => {
    const closed: string[] = [];
    const owner = (name: string) => ({
      failure: (error: unknown) => new Error(`${name}: ${(error as Error).message}`),
      close: () => closed.push(name),
    });
    async function* bytes(fail?: boolean) {
      yield encoder.encode('data: a\n\ndata: b\n\n');
      if (fail) throw new Error('socket reset');
    }
    const read: string[] = [];
    for await (const event of serverEvents(bytes(), owner('ended'))) read.push(event.data);
    for await (const _ of serverEvents(bytes(), owner('left'))) break;
    const failing = serverEvents(bytes(true), owner('failed'));
    await expect(
      (async () => {
        for await (const _ of failing);
      })(),
    ).rejects.toThrow('failed: socket reset');
    expect(read).toEqual(['a', 'b']);
    expect(closed).toEqual(['ended', 'left', 'failed']);
  });
});

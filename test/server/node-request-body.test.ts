import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeRequest } from '../../src/server/node-request.ts';

/**
 * `NodeRequest.body` over a real node:http server: a body the parser has taken whole before the route reads it (the
 * common case: routes read it after the key's check) comes off the stream's buffer at once, with the same bytes and
 * the same limit as one read while it still arrives.
 */
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
});

interface Outcome {
  /** Whether the parser had the whole message when the body was read. */
  complete: boolean;
  bytes?: string;
  status?: number | undefined;
}

/**
 * A server that reads each request's body (`maxBytes`) once `ready` says so; resolves to its port, its outcomes, and
 * `reading`, settled once the first body read has started.
 */
async function bodyServer(maxBytes: number, ready: (req: IncomingMessage) => Promise<void>) {
  const outcomes: Outcome[] = [];
  let started!: () => void;
  const reading = new Promise<void>((done) => (started = done));
  const server = createServer(async (req, res) => {
    await ready(req);
    const complete = req.complete;
    try {
      const body = new NodeRequest(req, 'http://127.0.0.1').body(maxBytes);
      started();
      const bytes = await body;
      outcomes.push({ complete, bytes: Buffer.from(bytes).toString('utf8') });
      res.end('ok');
    } catch (error) {
      outcomes.push({ complete, status: (error as { status?: number }).status });
      res.statusCode = 413;
      res.end();
    }
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as { port: number }).port, outcomes, reading };
}

/** Sends raw HTTP/1.1 in `parts`, each after the last once `between` settles; resolves once the server answered. */
async function send(port: number, parts: string[], between: () => Promise<void> = async () => {}): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  for (const [index, part] of parts.entries()) {
    if (index > 0) await between();
    socket.write(part);
  }
  await once(socket, 'data');
  socket.destroy();
}

const afterParse = (req: IncomingMessage) =>
  new Promise<void>((done) => (req.complete ? done() : setImmediate(() => setImmediate(done))));

describe('NodeRequest.body', () => {
  it('takes a body parsed whole off the buffer, byte for byte', async () => {
    const { port, outcomes } = await bodyServer(1024, afterParse);
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'héllo' }] });
    const length = Buffer.byteLength(body);
    await send(port, [`POST /x HTTP/1.1\r\nhost: a\r\ncontent-length: ${length}\r\n\r\n${body}`]);
    expect(outcomes).toEqual([{ complete: true, bytes: body }]);
  });

  it('refuses a chunked body parsed whole past the limit, as one still arriving', async () => {
    const { port, outcomes } = await bodyServer(8, afterParse);
    const chunked =
      'POST /x HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n6\r\n123456\r\n6\r\n789012\r\n0\r\n\r\n';
    await send(port, [chunked]);
    expect(outcomes).toEqual([{ complete: true, status: 413 }]);
  });

  it('reads an empty body as no bytes', async () => {
    const { port, outcomes } = await bodyServer(8, afterParse);
    await send(port, ['POST /x HTTP/1.1\r\nhost: a\r\ncontent-length: 0\r\n\r\n']);
    expect(outcomes).toEqual([{ complete: true, bytes: '' }]);
  });

  it('still waits for a body that arrives after the route asked for it', async () => {
    const { port, outcomes, reading } = await bodyServer(1024, async () => {});
    await send(port, ['POST /x HTTP/1.1\r\nhost: a\r\ncontent-length: 10\r\n\r\n12345', '67890'], () => reading);
    expect(outcomes).toEqual([{ complete: false, bytes: '1234567890' }]);
  });
});

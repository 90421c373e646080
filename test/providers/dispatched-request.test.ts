import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchedRequest } from '../../src/providers/wire/dispatched-request.ts';

/**
 * The wire transport's own request handler (src/providers/wire/dispatched-request.ts) keeps undici's `request`
 * contract: status and headers, the body with backpressure, the caller's signal aborting the request or its body,
 * and no listener left on a signal the caller reuses.
 */
let server: Server;
let origin: string;
const agent = new Agent();
/** Bodies still being sent, ended when the test is done with them. */
const open = new Set<ServerResponse>();
/** Called when the server holds a request whose headers it does not send. */
let heldHeaders = () => {};

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    if (request.url === '/slow-headers') {
      heldHeaders();
      return void open.add(response);
    }
    if (request.url === '/slow-body') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('first part;');
      return void open.add(response);
    }
    if (request.url === '/broken-body') {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
      // Cut off once the first part is on its way: the client has the headers and part of the body.
      return void response.write('ten bytes;', () => response.socket?.destroy());
    }
    if (request.url === '/big') {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      return void response.end(Buffer.alloc(1024 * 1024, 97));
    }
    response.writeHead(200, { 'content-type': 'application/json', 'x-answer': ['a', 'b'] });
    response.end('{"ok":true}');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const response of open) response.destroy();
  await agent.close();
  await new Promise((done) => server.close(done));
});

const get = (path: string, signal?: AbortSignal) => dispatchedRequest(agent, { origin, path, method: 'GET' }, signal);

async function text(body: NodeJS.ReadableStream): Promise<string> {
  let all = '';
  for await (const chunk of body) all += chunk.toString();
  return all;
}

describe('dispatchedRequest', () => {
  it('answers the status, the headers (repeated ones as a list) and the body', async () => {
    const response = await get('/');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['x-answer']).toEqual(['a', 'b']);
    expect(await text(response.body)).toBe('{"ok":true}');
  });

  it('reads a body larger than its high-water mark to the end (backpressure resumes)', async () => {
    const response = await get('/big');
    expect((await text(response.body)).length).toBe(1024 * 1024);
  });

  it('leaves no listener on a signal the caller reuses for every call', async () => {
    const signal = new AbortController().signal;
    for (let call = 0; call < 20; call++) await text((await get('/', signal)).body);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('rejects with the signal’s reason when aborted before the headers', async () => {
    const controller = new AbortController();
    const held = new Promise<void>((resolve) => (heldHeaders = resolve));
    const pending = get('/slow-headers', controller.signal);
    await held;
    controller.abort(new Error('caller gone'));
    await expect(pending).rejects.toThrow('caller gone');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('fails the body being read with the signal’s reason; the pool answers the next call', async () => {
    const controller = new AbortController();
    const response = await get('/slow-body', controller.signal);
    // The headers are in and the body is not done (the server holds its end).
    controller.abort(new Error('caller gone mid-body'));
    await expect(text(response.body)).rejects.toThrow('caller gone mid-body');
    expect(response.body.destroyed).toBe(true);
    // The same agent still answers: the aborted request did not wedge its pool.
    expect(await text((await get('/')).body)).toBe('{"ok":true}');
  });

  it('text() gathers the body without a stream, also past the high-water mark', async () => {
    expect(await (await get('/')).text()).toBe('{"ok":true}');
    expect(await (await get('/big')).text()).toBe('a'.repeat(1024 * 1024));
  });

  it('keeps the chunks that come before the caller picks, pausing the socket at the mark until it does', async () => {
    const calls: string[] = [];
    let handler!: Dispatcher.DispatchHandler;
    const controller = {
      pause: () => calls.push('pause'),
      resume: () => calls.push('resume'),
      abort: (reason: Error) => handler.onResponseError!(controller as never, reason),
    };
    const held = { dispatch: (_options: unknown, given: Dispatcher.DispatchHandler) => void (handler = given) };
    const pending = dispatchedRequest(held as unknown as Dispatcher, { origin, path: '/', method: 'GET' });
    handler.onRequestStart!(controller as never, {});
    handler.onResponseStart!(controller as never, 200, {}, 'OK');
    const response = await pending;
    const part = Buffer.alloc(40 * 1024, 98);
    handler.onResponseData!(controller as never, part);
    expect(calls).toEqual([]);
    handler.onResponseData!(controller as never, part);
    // 80 kB kept, past the 64 kB mark, and nobody reads yet.
    expect(calls).toEqual(['pause']);
    const whole = response.text();
    expect(calls).toEqual(['pause', 'resume']);
    handler.onResponseData!(controller as never, part);
    handler.onResponseEnd!(controller as never, {});
    expect(await whole).toBe('b'.repeat(3 * 40 * 1024));
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('a failure before the caller picks fails text() and the stream alike', async () => {
    let handler!: Dispatcher.DispatchHandler;
    const held = { dispatch: (_options: unknown, given: Dispatcher.DispatchHandler) => void (handler = given) };
    const controller = { pause() {}, resume() {}, abort() {} };
    const answered = async () => {
      const pending = dispatchedRequest(held as unknown as Dispatcher, { origin, path: '/', method: 'GET' });
      handler.onRequestStart!(controller as never, {});
      handler.onResponseStart!(controller as never, 200, {}, 'OK');
      const response = await pending;
      handler.onResponseData!(controller as never, Buffer.from('part of it'));
      handler.onResponseError!(controller as never, new Error('socket hang up'));
      return response;
    };
    await expect((await answered()).text()).rejects.toThrow('socket hang up');
    await expect(text((await answered()).body)).rejects.toThrow('socket hang up');
  });

  it('text() fails with the signal’s reason mid-body, leaves no listener; the pool answers the next call', async () => {
    const reused = new AbortController().signal;
    for (let call = 0; call < 20; call++) await (await get('/', reused)).text();
    expect(getEventListeners(reused, 'abort')).toHaveLength(0);

    const controller = new AbortController();
    const response = await get('/slow-body', controller.signal);
    const whole = response.text();
    controller.abort(new Error('caller gone while gathering'));
    await expect(whole).rejects.toThrow('caller gone while gathering');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(await (await get('/')).text()).toBe('{"ok":true}');
  });

  it('a body cut off by the server fails text()', async () => {
    await expect((await get('/broken-body')).text()).rejects.toThrow();
  });

  it('an already aborted signal never reaches the server', async () => {
    const before = open.size;
    await expect(get('/slow-headers', AbortSignal.abort(new Error('too late')))).rejects.toThrow('too late');
    expect(open.size).toBe(before);
  });
});

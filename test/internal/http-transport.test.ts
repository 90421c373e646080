import { createServer, request as httpRequest, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPooledFetch } from '../../src/internal/http-transport.ts';

/** An origin server, and a forward proxy that records what passed through it. */
let origin: Server;
let proxy: Server;
let originURL = '';
let proxyURL = '';
const proxied: string[] = [];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

/** Who waits for a request to reach `/held`. */
const held: Array<() => void> = [];
beforeAll(async () => {
  origin = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    if (request.url === '/gzip') {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      return response.end(gzipSync(JSON.stringify({ zipped: true })));
    }
    if (request.url === '/redirect') {
      response.writeHead(307, { location: '/echo' });
      return response.end();
    }
    // Never answered: held until the client gives up and closes the connection.
    if (request.url === '/held') {
      for (const arrived of held.splice(0)) arrived();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({ method: request.method, url: request.url, body, auth: request.headers.authorization ?? null }),
    );
  });
  // A forward proxy: absolute-form request targets are forwarded as they are.
  proxy = createServer((request, response) => {
    proxied.push(request.url!);
    const target = new URL(request.url!);
    const upstream = httpRequest(target, { method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(response);
    });
    request.pipe(upstream);
  });
  // undici 7 tunnelled http:// targets with CONNECT; undici 8 forwards them in absolute form. Either passes here.
  proxy.on('connect', (request, client, head) => {
    proxied.push(request.url!);
    const [host, port] = request.url!.split(':');
    const upstream = connect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  [originURL, proxyURL] = await Promise.all([listen(origin), listen(proxy)]);
});
afterAll(async () => {
  origin.closeAllConnections();
  proxy.closeAllConnections();
  await Promise.all([new Promise((resolve) => origin.close(resolve)), new Promise((resolve) => proxy.close(resolve))]);
});

describe('createPooledFetch', () => {
  const fetchDirect = createPooledFetch({ env: {} });

  it('sends method, headers and body, and answers a standard Response', async () => {
    const response = await fetchDirect(`${originURL}/echo`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(response).toBeInstanceOf(Response);
    expect(await response.json()).toEqual({ method: 'POST', url: '/echo', body: '{"a":1}', auth: 'Bearer k' });
  });

  it('decodes gzip bodies and follows redirects, like fetch', async () => {
    expect(await (await fetchDirect(`${originURL}/gzip`)).json()).toEqual({ zipped: true });
    const redirected = await fetchDirect(`${originURL}/redirect`, { method: 'POST', body: 'kept' });
    expect(await redirected.json()).toMatchObject({ url: '/echo', body: 'kept' });
  });

  it('aborts with the signal, rejecting with its reason', async () => {
    const controller = new AbortController();
    const arrived = new Promise<void>((resolve) => held.push(resolve));
    const pending = fetchDirect(`${originURL}/held`, { signal: controller.signal });
    await arrived;
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
  });

  it('rejects network failures as TypeError("fetch failed"), as fetch does', async () => {
    await expect(fetchDirect('http://127.0.0.1:9/unreachable')).rejects.toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
    });
  });

  it('goes through HTTP_PROXY, unless NO_PROXY exempts the host', async () => {
    const viaProxy = createPooledFetch({ env: { HTTP_PROXY: proxyURL } });
    proxied.length = 0;
    expect(await (await viaProxy(`${originURL}/echo`)).json()).toMatchObject({ url: '/echo' });
    expect(proxied).toHaveLength(1);
    expect(proxied[0]).toContain(originURL.replace('http://', ''));

    const exempt = createPooledFetch({ env: { HTTP_PROXY: proxyURL, NO_PROXY: '127.0.0.1' } });
    proxied.length = 0;
    await (await exempt(`${originURL}/echo`)).json();
    expect(proxied).toEqual([]);
  });
});

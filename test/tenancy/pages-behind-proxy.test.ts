import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { api, jsonOf, rawRequest, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Issue 36, item 10: the pages (`/`, `/experiments`, `/experiments/<id>`) were public whenever `serve` was bound to
 * loopback, so with the docs' own reverse-proxy setup (bound to 127.0.0.1, `--allowed-host <name>`) anyone reaching
 * the proxy read every workflow, agent, cost and experiment input without a key. A real proxy in front of `serve`
 * here, the way nginx and Caddy forward; two tenants, one of which wrote an experiment the other must not read.
 */

/** A reverse proxy to `upstream`, as nginx or Caddy is set up: `host` is the `Host` it sends, plus its headers. */
async function startProxy(
  upstream: string,
  forward: (incoming: IncomingHttpHeaders) => Record<string, string>,
): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(upstream);
  const server: Server = createServer((incoming, outgoing) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(incoming.headers))
      if (typeof value === 'string' && name !== 'host' && name !== 'connection') headers[name] = value;
    const proxied = httpRequest(
      { host: target.hostname, port: target.port, path: incoming.url, method: incoming.method },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    for (const [name, value] of Object.entries({ ...headers, ...forward(incoming.headers) }))
      proxied.setHeader(name, value);
    proxied.on('error', () => outgoing.destroy());
    incoming.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const PAGES = ['/', '/experiments', '/experiments/EXPERIMENT'];
const SECRET_INPUT = 'the merger closes on Friday';

const grant = (agents: string[] | null): KeyGrant => ({
  scopes: ['chat', 'calls:read'],
  allowed_agents: agents,
  allowed_models: null,
  expires_at: null,
});

/** Serves an experiment of tenant A's with an input that must stay A's; returns its id. */
async function experimentOf(test: TestServer, key: string): Promise<string> {
  const created = await api(test, '/v1/experiments', {
    key,
    body: {
      agent_id: 'alpha',
      versions: [{ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Summarise: {{text}}' }] }],
      inputs: [{ variables: { text: SECRET_INPUT } }],
    },
  });
  expect(created.status).toBe(201);
  return (await jsonOf(created)).id;
}

describe('the docs’ setup: bound to 127.0.0.1 with --allowed-host, behind a proxy', () => {
  let test: TestServer;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let alpha = '';
  let beta = '';
  let experimentId = '';
  const page = (path: string) => path.replace('EXPERIMENT', experimentId);
  beforeAll(async () => {
    test = await startTestServer({ allowedHosts: ['switchyard.example'] });
    alpha = (await test.server.keys.create('alpha', { grant: grant(['alpha']) })).key;
    beta = (await test.server.keys.create('beta', { grant: grant(['beta']) })).key;
    experimentId = await experimentOf(test, alpha);
    // nginx: `proxy_set_header Host $host; proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;`
    proxy = await startProxy(test.url, () => ({ host: 'switchyard.example', 'x-forwarded-for': '203.0.113.7' }));
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await test?.stop();
  });

  it.each(PAGES)('%s needs a key through the proxy', async (path) => {
    const response = await fetch(`${proxy.url}${page(path)}`);
    const body = await response.text();
    expect(response.status, body.slice(0, 200)).toBe(401);
    expect(body).not.toContain(SECRET_INPUT);
    expect(body).toContain('invalid_api_key');
  });

  it.each(PAGES)('%s needs a key even from loopback once --allowed-host is set', async (path) => {
    const response = await rawRequest(`${test.url}${page(path)}`);
    expect(response.status).toBe(401);
  });

  it('with a key, each tenant reads its own: its experiment, not the other’s, nor the workflows', async () => {
    const withKey = (key: string, path: string) =>
      fetch(`${proxy.url}${page(path)}`, { headers: { authorization: `Bearer ${key}` } });
    const own = await withKey(alpha, '/experiments/EXPERIMENT');
    expect(own.status).toBe(200);
    expect(await own.text()).toContain(SECRET_INPUT);
    const other = await withKey(beta, '/experiments/EXPERIMENT');
    expect(other.status).toBe(404);
    expect(await other.text()).not.toContain(SECRET_INPUT);
    expect(await (await withKey(beta, '/experiments')).text()).not.toContain(experimentId);
    // The workflow page spans every agent: a key limited to agents is refused it.
    expect((await withKey(beta, '/')).status).toBe(403);
  });
});

describe('bound to 127.0.0.1 without --allowed-host', () => {
  let test: TestServer;
  let experimentId = '';
  beforeAll(async () => {
    test = await startTestServer();
    const { key } = await test.server.keys.create('alpha', { grant: grant(['alpha']) });
    experimentId = await experimentOf(test, key);
  }, 60_000);
  afterAll(() => test?.stop());

  it('is public to a browser on this machine (no proxy in between)', async () => {
    for (const path of PAGES) {
      const response = await fetch(`${test.url}${path.replace('EXPERIMENT', experimentId)}`);
      expect(response.status, path).toBe(200);
    }
  });

  // nginx's default `Host` is the upstream's address, so the server cannot tell the proxy by its name; a proxy says
  // it is one by the headers it adds.
  it.each([
    ['nginx (X-Forwarded-For, Host rewritten to the upstream)', { 'x-forwarded-for': '203.0.113.7' }],
    ['nginx (X-Real-IP)', { 'x-real-ip': '203.0.113.7' }],
    ['Caddy (X-Forwarded-Host)', { 'x-forwarded-host': 'switchyard.example', 'x-forwarded-proto': 'https' }],
    ['RFC 7239 (Forwarded)', { forwarded: 'for=203.0.113.7;proto=https' }],
  ])('needs a key through a proxy that says it is one: %s', async (_name, added) => {
    const proxy = await startProxy(test.url, () => ({ host: new URL(test.url).host, ...added }));
    try {
      for (const path of PAGES) {
        const response = await fetch(`${proxy.url}${path.replace('EXPERIMENT', experimentId)}`);
        const body = await response.text();
        expect(response.status, path).toBe(401);
        expect(body).not.toContain(SECRET_INPUT);
      }
    } finally {
      await proxy.close();
    }
  });
});

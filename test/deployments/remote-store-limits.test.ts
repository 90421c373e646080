import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeploymentStoreError, RemoteDeploymentStore } from '../../src/deployments/index.ts';
import { MAX_CACHED_ANSWERS } from '../../src/deployments/remote-store.ts';
import { createGateway } from '../../src/index.ts';
import { bounded } from '../reliability/harness.ts';
import { type FakeDeploymentServer, startFakeDeploymentServer } from './fake-deployment-server.ts';
import { makeDeployment } from './fixtures.ts';

/**
 * A remote deployment store's answers are read up to `maxResponseBytes` (default 16 MiB), and a
 * caller's `AbortSignal` ends its lookup at once (it waited for the store's 10 s timeout, then failed with a 503).
 */

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as DeploymentStoreError,
  );

let fake: FakeDeploymentServer | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await fake?.close();
  fake = undefined;
});

const id = 'support:production#1';

/** Writes 64 KiB chunks of one endless JSON string until the client goes away. */
function endless(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  response.write('{"id":"');
  const pump = () => {
    while (!response.destroyed && response.write(chunk));
    if (!response.destroyed) response.once('drain', pump);
  };
  pump();
}

describe('RemoteDeploymentStore answer size', () => {
  it('stops reading an endless answer at the default limit (16 MiB), with an error naming it', async () => {
    fake = await startFakeDeploymentServer([makeDeployment()]);
    let closed: Promise<unknown> = new Promise(() => undefined);
    fake.respondWith = (_request, response) => {
      closed = new Promise((resolve) => response.once('close', resolve));
      endless(response);
    };
    const store = new RemoteDeploymentStore({ url: fake.url, apiKey: fake.apiKey });
    const error = await bounded(caught(store.get(id)), 8_000, 'endless answer');
    expect(error).toBeInstanceOf(DeploymentStoreError);
    expect(error).toMatchObject({ status: 502, code: 'response_too_large', type: 'api_error' });
    expect(error?.message).toBe(
      `The deployment store at ${fake.url}/v1/deployments/support%3Aproduction%231 sent an answer larger than ` +
        '16777216 bytes (maxResponseBytes); it was not read further.',
    );
    await bounded(closed, 5_000, 'connection closed');
  });

  it('refuses an answer whose length is over a configured limit, and one sent in chunks past it', async () => {
    const big = makeDeployment({}, {}, { description: 'y'.repeat(200_000) });
    fake = await startFakeDeploymentServer([big]);
    const store = new RemoteDeploymentStore({ url: fake.url, apiKey: fake.apiKey, maxResponseBytes: 100_000 });
    const declared = await caught(store.get(id));
    expect(declared).toMatchObject({ code: 'response_too_large', status: 502 });
    expect(declared?.message).toContain('larger than 100000 bytes (maxResponseBytes)');

    fake.respondWith = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [big] })); // end() with no length: chunked
    };
    const chunked = await caught(store.list());
    expect(chunked).toMatchObject({ code: 'response_too_large' });
    expect(store.lastError).toBe(chunked);

    fake.respondWith = undefined;
    const roomy = new RemoteDeploymentStore({ url: fake.url, apiKey: fake.apiKey, maxResponseBytes: 300_000 });
    expect((await roomy.get(id))?.description).toHaveLength(200_000);
  });

  it('serves a cached copy when a revalidation answer is too large, and says so', async () => {
    fake = await startFakeDeploymentServer([makeDeployment()]);
    const store = new RemoteDeploymentStore({
      url: fake.url,
      apiKey: fake.apiKey,
      ttlMs: 20,
      maxResponseBytes: 50_000,
    });
    // The store's clock (Date.now) moved on by hand past the TTL; the sockets and their timers stay real.
    vi.useFakeTimers({ toFake: ['Date'] });
    const cached = await store.get(id);
    fake.respondWith = (_request, response) => endless(response);
    vi.advanceTimersByTime(40);
    expect(await store.get(id)).toBe(cached);
    expect(store.stale).toBe(true);
    expect(store.lastError).toMatchObject({ code: 'response_too_large' });
  });
});

describe('RemoteDeploymentStore and the caller’s AbortSignal', () => {
  it('rejects as soon as the signal fires, with a 499 aborted naming the URL', async () => {
    fake = await startFakeDeploymentServer([makeDeployment()]);
    fake.respondWith = () => undefined; // never answers
    const store = new RemoteDeploymentStore({ url: fake.url, apiKey: fake.apiKey, timeoutMs: 10_000 });
    const error = await bounded(caught(store.get(id, { signal: AbortSignal.timeout(200) })), 3_000, 'aborted get');
    expect(error).toBeInstanceOf(DeploymentStoreError);
    expect(error).toMatchObject({ status: 499, code: 'aborted' });
    expect(error?.message).toBe(
      `The request to the deployment store at ${fake.url}/v1/deployments/support%3Aproduction%231 was aborted ` +
        'by the caller.',
    );
    const listed = await bounded(caught(store.list({}, { signal: AbortSignal.timeout(100) })), 3_000, 'list');
    expect(listed).toMatchObject({ code: 'aborted' });
  });

  it('an already aborted signal sends nothing', async () => {
    fake = await startFakeDeploymentServer([makeDeployment()]);
    const store = new RemoteDeploymentStore({ url: fake.url, apiKey: fake.apiKey });
    const error = await caught(store.get(id, { signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ code: 'aborted' });
    expect(fake.requests).toHaveLength(0);
  });

  it('one caller leaving does not fail the others sharing the request', async () => {
    fake = await startFakeDeploymentServer([makeDeployment()]);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const served = fake.respondWith;
    fake.respondWith = (_request, response) => {
      void held.then(() => {
        fake!.respondWith = served;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(makeDeployment()));
      });
    };
    const store = new RemoteDeploymentStore({ url: fake.url, apiKey: fake.apiKey });
    const controller = new AbortController();
    const leaving = caught(store.get(id, { signal: controller.signal }));
    const staying = store.get(id);
    controller.abort();
    expect(await leaving).toMatchObject({ code: 'aborted' });
    release();
    expect(await bounded(staying, 3_000, 'shared get')).toEqual(makeDeployment());
    expect(fake.requests).toHaveLength(1);
  });

  it('a call to a deployment ends at once when its signal fires, and is recorded', async () => {
    fake = await startFakeDeploymentServer([makeDeployment()]);
    fake.respondWith = () => undefined;
    const gateway = createGateway({
      mock: true,
      deployments: new RemoteDeploymentStore({ url: fake.url, apiKey: fake.apiKey }),
    });
    const error = await bounded(
      caught(
        gateway.createCompletion(
          { model: `switchyard/deployment/${id}`, input: { product: 'Acme', ticket: 'hi' } },
          { signal: AbortSignal.timeout(200) },
        ),
      ),
      3_000,
      'aborted call',
    );
    expect(error).toMatchObject({ status: 499, code: 'aborted' });
    await gateway.flush();
    const record = (await gateway.calls.list()).data.find((call) => call.id === error?.callId);
    expect(record?.error?.code).toBe('aborted');
    await gateway.close();
  });
});

describe("a remote deployment store's cache, keyed by what callers name", () => {
  it('keeps at most MAX_CACHED_ANSWERS: an agent never named again is forgotten, the newest kept', async () => {
    let asked = 0;
    const store = new RemoteDeploymentStore({
      url: 'http://deployments.test',
      apiKey: 'sk-test-remote-cache',
      fetch: async () => {
        asked += 1;
        return Response.json({ object: 'list', data: [] });
      },
    });
    // A caller naming a new agent each time (deployment:<random>:production#1 asks the list of its agent).
    for (let agent = 0; agent <= MAX_CACHED_ANSWERS; agent++) await store.list({ agent_id: `agent-${agent}` });
    expect(asked).toBe(MAX_CACHED_ANSWERS + 1);
    await store.list({ agent_id: `agent-${MAX_CACHED_ANSWERS}` });
    expect(asked).toBe(MAX_CACHED_ANSWERS + 1);
    await store.list({ agent_id: 'agent-0' });
    expect(asked).toBe(MAX_CACHED_ANSWERS + 2);
  }, 30_000);
});

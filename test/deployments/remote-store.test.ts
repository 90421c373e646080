import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createDeploymentStore,
  DeploymentConflictError,
  DeploymentStoreError,
  DeploymentValidationError,
  FileDeploymentStore,
  MemoryDeploymentStore,
  RemoteDeploymentStore,
} from '../../src/deployments/index.ts';
import { MissingCredentialsError } from '../../src/errors.ts';
import { type FakeDeploymentServer, startFakeDeploymentServer } from './fake-deployment-server.ts';
import { makeDeployment } from './fixtures.ts';

/**
 * The store's clock (`Date.now`) faked from here on, moved on by hand: a TTL or a pause passes without being waited
 * out. Nothing else is faked: the sockets and timers of the fake service stay real.
 */
function fakeClock(): { pass(ms: number): void } {
  vi.useFakeTimers({ toFake: ['Date'] });
  return { pass: (ms) => vi.advanceTimersByTime(ms) };
}
const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as Error & Record<string, any>,
  );

let fake: FakeDeploymentServer | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await fake?.close();
  fake = undefined;
});

async function setup(
  ttlMs = 60_000,
  deployments = [makeDeployment({ number: 1 }), makeDeployment({ number: 2 }), makeDeployment({ agent_id: 'billing' })],
) {
  fake = await startFakeDeploymentServer(deployments);
  const store = new RemoteDeploymentStore({ url: fake.url, apiKey: fake.apiKey, ttlMs });
  return { fake, store };
}

describe('RemoteDeploymentStore', () => {
  it('gets a deployment with a Bearer key, and serves it from the cache within the TTL', async () => {
    const { fake, store } = await setup();
    expect(await store.get('support:production#1')).toEqual(makeDeployment({ number: 1 }));
    expect(await store.get('support:production#1')).toEqual(makeDeployment({ number: 1 }));
    expect(fake.requests).toEqual([
      {
        method: 'GET',
        path: '/v1/deployments/support%3Aproduction%231',
        authorization: `Bearer ${fake.apiKey}`,
        ifNoneMatch: undefined,
        status: 200,
      },
    ]);
    expect(store.stale).toBe(false);
  });

  it('lists per agent, caching each query separately', async () => {
    const { fake, store } = await setup();
    expect((await store.list({ agent_id: 'support' })).map((d) => d.id)).toEqual([
      'support:production#2',
      'support:production#1',
    ]);
    expect(await store.list()).toHaveLength(3);
    await store.list({ agent_id: 'support' });
    await store.list();
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/deployments?agent_id=support', '/v1/deployments']);
  });

  it('answers undefined for an unknown id, and encodes ids of any shape', async () => {
    const { fake, store } = await setup(60_000, [makeDeployment({ id: 'support@prod#3', number: 3 })]);
    expect(await store.get('support:production#9')).toBeUndefined();
    expect((await store.get('support@prod#3'))?.number).toBe(3);
    expect(fake.requests.map((r) => [r.path, r.status])).toEqual([
      ['/v1/deployments/support%3Aproduction%239', 404],
      ['/v1/deployments/support%40prod%233', 200],
    ]);
  });

  it('revalidates after the TTL with If-None-Match, and keeps the value on 304', async () => {
    const { fake, store } = await setup(200);
    const clock = fakeClock();
    const first = await store.get('support:production#1');
    clock.pass(250);
    expect(await store.get('support:production#1')).toBe(first);
    expect(fake.requests.map((r) => r.status)).toEqual([200, 304]);
    expect(fake.requests[1]!.ifNoneMatch).toMatch(/^"[0-9a-f]{16}"$/);
    expect(await store.get('support:production#1')).toBe(first); // fresh again for another TTL
    expect(fake.requests).toHaveLength(2);
  });

  it('asks the service within the TTL when a fresh answer is asked for (a 304 when unchanged)', async () => {
    const { fake, store } = await setup();
    const first = await store.list({ agent_id: 'support' });
    expect(await store.list({ agent_id: 'support' }, { fresh: true })).toEqual(first);
    fake.deployments.set('support:production#3', makeDeployment({ number: 3 }));
    expect((await store.list({ agent_id: 'support' }, { fresh: true })).map((d) => d.number)).toEqual([3, 2, 1]);
    // And what it read is what the cache serves next.
    expect((await store.list({ agent_id: 'support' })).map((d) => d.number)).toEqual([3, 2, 1]);
    expect(fake.requests.map((r) => r.status)).toEqual([200, 304, 200]);
    // A fresh answer the service cannot give is an error, never the cached one: a write is based on it.
    fake.failWith = 503;
    expect(await caught(store.list({ agent_id: 'support' }, { fresh: true }))).toBeInstanceOf(DeploymentStoreError);
    expect((await store.list({ agent_id: 'support' })).map((d) => d.number)).toEqual([3, 2, 1]);
  });

  it('picks up a changed answer after the TTL', async () => {
    const { fake, store } = await setup(200);
    const clock = fakeClock();
    await store.list({ agent_id: 'support' });
    fake.deployments.set('support:production#3', makeDeployment({ number: 3 }));
    expect(await store.list({ agent_id: 'support' })).toHaveLength(2);
    clock.pass(250);
    expect(await store.list({ agent_id: 'support' })).toHaveLength(3);
  });

  it('serves the cached value when the service answers 503, and says so', async () => {
    const { fake, store } = await setup(40);
    const clock = fakeClock();
    const cached = await store.get('support:production#1');
    fake.failWith = 503;
    clock.pass(60);
    expect(await store.get('support:production#1')).toBe(cached);
    expect(store.stale).toBe(true);
    expect(store.lastError).toBeInstanceOf(DeploymentStoreError);
    expect(store.lastError?.message).toBe(
      `The deployment store at ${fake.url}/v1/deployments/support%3Aproduction%231 answered 503: Service unavailable.`,
    );
    expect((store.lastError as DeploymentStoreError).upstreamStatus).toBe(503);

    fake.failWith = undefined;
    clock.pass(60); // past the pause after a failure (capped at the TTL)
    expect(await store.get('support:production#1')).toBe(cached);
    expect(store.stale).toBe(false);
    expect(store.lastError).toBeUndefined();
  });

  it('serves the cached value when the service is stopped, and throws when nothing is cached', async () => {
    const { fake, store } = await setup(30);
    const clock = fakeClock();
    const cached = await store.list({ agent_id: 'support' });
    await fake.close();
    clock.pass(50);
    expect(await store.list({ agent_id: 'support' })).toEqual(cached);
    expect(store.stale).toBe(true);
    expect(store.lastError?.message).toMatch(
      /^The deployment store at http:\/\/127\.0\.0\.1:\d+\/v1\/deployments\?agent_id=support could not be reached: /,
    );

    const error = await caught(store.get('billing:production#1'));
    expect(error).toBeInstanceOf(DeploymentStoreError);
    expect(error?.code).toBe('deployment_store_unavailable');
    expect(error?.status).toBe(503);
    expect(error?.message).toContain(`${fake.url}/v1/deployments/billing%3Aproduction%231 could not be reached`);
  });

  it('throws a typed error naming the URL and status, never the key, when nothing is cached', async () => {
    const { fake, store } = await setup();
    fake.failWith = 503;
    const outage = await caught(store.get('support:production#1'));
    expect(outage).toBeInstanceOf(DeploymentStoreError);
    expect(outage?.upstreamStatus).toBe(503);
    expect(outage?.message).toContain(`${fake.url}/v1/deployments/support%3Aproduction%231 answered 503`);

    fake.failWith = undefined;
    const wrongKey = new RemoteDeploymentStore({ url: `${fake.url}/v1/`, apiKey: 'sy-wrong-key-abcdefghijkl' });
    const refused = await caught(wrongKey.get('support:production#1'));
    expect(refused).toBeInstanceOf(DeploymentStoreError);
    expect(refused?.upstreamStatus).toBe(401);
    expect(refused?.message).toContain(`${fake.url}/v1/deployments/support%3Aproduction%231 answered 401`);
    expect(refused?.message).not.toContain('sy-wrong-key-abcdefghijkl');
    expect(JSON.stringify(refused?.toJSON())).not.toContain('abcdefghijkl');
  });

  it('validates answers and names the URL and field', async () => {
    const broken = structuredClone(makeDeployment()) as any;
    broken.version.messages[0].role = 'robot';
    const { fake, store } = await setup(60_000, [broken]);
    const error = await caught(store.list());
    expect(error).toBeInstanceOf(DeploymentValidationError);
    expect(error?.status).toBe(502);
    expect(error?.message).toContain(
      `${fake.url}/v1/deployments: data[0].version.messages[0].role: Invalid discriminator value`,
    );
    const single = await caught(store.get('support:production#1'));
    expect(single?.message).toContain(`${fake.url}/v1/deployments/support%3Aproduction%231: version.messages[0].role`);
  });

  it('puts a new deployment, treats identical content as a no-op and different content as a conflict', async () => {
    const { fake, store } = await setup();
    expect(await store.list({ agent_id: 'support' })).toHaveLength(2);
    await store.put(makeDeployment({ number: 3 }));
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'PUT',
      path: '/v1/deployments/support%3Aproduction%233',
      status: 201,
    });
    expect(await store.list({ agent_id: 'support' })).toHaveLength(3); // the put dropped the cached lists
    const requests = fake.requests.length;
    expect((await store.get('support:production#3'))?.number).toBe(3); // cached by the put
    expect(fake.requests).toHaveLength(requests);

    await store.put(makeDeployment({ number: 3 }));
    const error = await caught(store.put(makeDeployment({ number: 3 }, { temperature: 0.9 })));
    expect(error).toBeInstanceOf(DeploymentConflictError);
    expect(error?.status).toBe(409);
  });

  it('validates a record before sending it', async () => {
    const { fake, store } = await setup();
    const error = await caught(store.put({ ...makeDeployment(), environment: 'prod' as never }));
    expect(error).toBeInstanceOf(DeploymentValidationError);
    expect(error?.status).toBe(400);
    expect(fake.requests).toHaveLength(0);
  });

  it('shares one request between concurrent callers', async () => {
    const { fake, store } = await setup();
    await Promise.all([
      store.get('support:production#1'),
      store.get('support:production#1'),
      store.get('support:production#1'),
    ]);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('createDeploymentStore', () => {
  it('makes a remote store for a URL, with the key from SWITCHYARD_API_KEY', async () => {
    fake = await startFakeDeploymentServer([makeDeployment()]);
    const store = createDeploymentStore(fake.url, { env: { SWITCHYARD_API_KEY: fake.apiKey } });
    expect(store).toBeInstanceOf(RemoteDeploymentStore);
    expect((await store.get('support:production#1'))?.id).toBe('support:production#1');
    expect(() => createDeploymentStore(fake!.url, { env: {} })).toThrow(MissingCredentialsError);
  });

  it('makes a file store for a directory or file:// URL, and passes stores through', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'switchyard-deployments-'));
    try {
      expect(createDeploymentStore(dir)).toBeInstanceOf(FileDeploymentStore);
      expect((createDeploymentStore(`file://${dir}`) as FileDeploymentStore).dir).toBe(dir);
      const memory = new MemoryDeploymentStore();
      expect(createDeploymentStore(memory)).toBe(memory);
      expect(() => createDeploymentStore('ftp://example.com/x')).toThrow(DeploymentStoreError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { startRedis } from '../helpers/redis.ts';
import { api, startTestServer } from '../server/start-test-server.ts';

/**
 * A Redis failover behind one address (a virtual IP, a DNS name a failover moves): the old primary, now a replica,
 * answers serve's open connection with READONLY. serve reconnects, reaching the new primary, instead of refusing
 * every limited call with 503 while that connection stays open.
 */
const available = await startRedis();
await available?.stop();
if (!available) console.warn('SKIPPED: a Redis failover (no redis-server installed; CI installs it).');

/** A TCP forwarder on loopback whose target port can move: what a virtual IP does in a failover. */
async function movableAddress(port: number): Promise<{ port: number; moveTo(port: number): void; close(): void }> {
  let target = port;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    const upstream = netConnect(target, '127.0.0.1');
    for (const each of [socket, upstream]) {
      sockets.add(each);
      each.on('error', () => {});
      each.on('close', () => sockets.delete(each));
    }
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    moveTo: (next) => {
      target = next;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

const portOf = (url: string) => Number(new URL(url).port);

describe.skipIf(!available)('a Redis failover behind one address', () => {
  it('is followed: the calls of a key limited in Redis pass again once the address moves', async () => {
    const [old, next] = [(await startRedis())!, (await startRedis())!];
    const address = await movableAddress(portOf(old.url));
    const server = await startTestServer({ redis: `redis://127.0.0.1:${address.port}` });
    const admin = new Redis(old.url);
    try {
      const { key, info } = await server.server.keys.create('limited in Redis');
      await server.server.keys.updateLimits(info.id, { max_in_flight: 2 });
      const chat = () =>
        api(server, '/v1/chat/completions', {
          key,
          body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
        });
      expect((await chat()).status).toBe(200);
      // The failover: the old primary follows the new one (read-only now); the address moves to the new one.
      await admin.call('REPLICAOF', '127.0.0.1', String(portOf(next.url)));
      address.moveTo(portOf(next.url));
      await expect.poll(async () => (await chat()).status, { timeout: 5000, interval: 200 }).toBe(200);
    } finally {
      admin.disconnect();
      await server.stop();
      address.close();
      await Promise.all([old.stop(), next.stop()]);
    }
  });
});

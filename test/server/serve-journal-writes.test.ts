import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockProvider } from '../../src/testing/index.ts';
import { startTestServer, type TestServer } from './start-test-server.ts';

const calls = 40;
let waiting = 0;
let release = () => {};
const together = new Promise<void>((resolve) => (release = resolve));

describe("serve's record journal", () => {
  let test: TestServer;
  beforeAll(async () => {
    // Answers the lone calls at once, and the concurrent ones together, once all of them are in flight.
    const simulator = new MockProvider({
      respond: async ({ body }) => {
        if (!JSON.stringify(body).includes('together')) return 'alone';
        if (++waiting === calls) release();
        await together;
        return 'together';
      },
    });
    test = await startTestServer({ mock: simulator });
  });
  afterAll(async () => {
    release();
    await test.stop();
  });
  const ask = (content: string) =>
    test.openai().chat.completions.create({ model: 'gpt-4o-latest', messages: [{ role: 'user', content }] });
  const stats = () => test.server.gateway.recordStats;

  it('writes a lone request’s record by itself, and requests answered together in one write', async () => {
    const lone = 5;
    for (let index = 0; index < lone; index++) await ask(`lone ${index}`);
    expect(stats().journal_writes).toBe(lone);
    await Promise.all(Array.from({ length: calls }, (_, index) => ask(`together ${index}`)));
    // Written at once whatever else is in flight (the test of "alone" wrong), they would take a write each.
    expect(stats().journal_writes - lone).toBeLessThanOrEqual(2);
    await test.server.gateway.flush();
    expect(stats().written).toBe(lone + calls);
  });
});

import { describe, expect, it } from 'vitest';
import { MemorySink, OpenTelemetrySink } from '../../src/entries/stores.ts';
import { createGateway, ProviderError } from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';

/**
 * Issue 35, item 9: options are typed `?: T | undefined`, so that a consumer with exactOptionalPropertyTypes may pass
 * what it read from the environment as it is. An option given as `undefined` must then mean what leaving it out
 * means, never replace a default with nothing.
 */
const unset = process.env.SWITCHYARD_TEST_NEVER_SET;
const hello = [{ role: 'user' as const, content: 'ping' }];

describe('an option given as undefined is an option left out', () => {
  it('records: { sinks: undefined } keeps the default memory sink, which answers queries', async () => {
    const gateway = createGateway({ mock: true, env: {}, records: { sinks: undefined, maxQueued: undefined } });
    await gateway.createCompletion({ model: 'gpt-sol-latest', messages: hello });
    await gateway.flush();
    expect((await gateway.calls.list({})).data).toHaveLength(1);
    await gateway.close();
  });

  it('the gateway’s, a provider’s and a call’s settings', async () => {
    const gateway = createGateway({
      mock: true,
      env: {},
      timeoutMs: undefined,
      fallbacks: undefined,
      retry: undefined,
      providers: { openai: { apiKey: unset, baseURL: unset, timeoutMs: undefined, keys: undefined } },
    });
    const answer = await gateway.createCompletion(
      { model: 'gpt-sol-latest', messages: hello },
      { signal: undefined, retry: undefined, firstTokenTimeoutMs: undefined, metadata: undefined, access: undefined },
    );
    expect(answer.choices[0]?.message.content).toBeTruthy();
    await gateway.close();
  });

  it('retry, the gateway’s and a call’s: its defaults stay (2 retries, a 10-minute deadline)', async () => {
    const failures = Array.from({ length: 4 }, () => ({ error: { status: 503 } }));
    const gateway = createGateway({
      mock: createMockProvider({ replies: [...failures, 'answered at the fifth attempt'] }),
      env: {},
      retry: { maxRetries: undefined, initialDelayMs: 1, maxDelayMs: 1, totalTimeoutMs: undefined },
    });
    const error = await gateway
      .createCompletion({ model: 'gpt-sol-latest', messages: hello }, { retry: { maxRetries: undefined } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    const stream = await gateway.createCompletion(
      { model: 'gpt-sol-latest', messages: hello, stream: true },
      { retry: { totalTimeoutMs: undefined }, firstTokenTimeoutMs: 60_000 },
    );
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('answered at the fifth attempt');
    await gateway.close();
  });

  it('the sinks’ options', () => {
    expect(new MemorySink({ capacity: undefined }).capacity).toBe(10_000);
    expect(
      () => new OpenTelemetrySink({ tracer: undefined, tracerName: undefined, providers: undefined }),
    ).not.toThrow();
  });
});

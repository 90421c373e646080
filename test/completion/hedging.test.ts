import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LatencyTracker } from '../../src/completion/latency-tracker.ts';
import { createGateway, type GatewayOptions } from '../../src/index.ts';
import type { SwitchyardResponseInfo } from '../../src/types.ts';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fake-servers/openai-server.ts';

/** Hedged requests: a slow first candidate (OpenAI's fake) and a second (Anthropic's fake) sent beside it. */
let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
beforeAll(async () => {
  [openai, anthropic] = await Promise.all([startFakeOpenAIServer(), startFakeAnthropicServer()]);
});
afterAll(() => Promise.all([openai.close(), anthropic.close()]));

const gatewayWith = (options: GatewayOptions = {}) =>
  createGateway({
    env: {},
    providers: {
      openai: { apiKey: 'sk-openai', baseURL: openai.url },
      anthropic: { apiKey: 'sk-ant', baseURL: anthropic.url },
    },
    retry: { maxRetries: 0 },
    ...options,
  });
const call = {
  model: 'openai/gpt-4o-mini',
  fallbacks: ['anthropic/claude-sonnet-4-5'],
  messages: [{ role: 'user' as const, content: 'Hello?' }],
};
const outcomes = (info: SwitchyardResponseInfo) =>
  info.attempts.map((attempt) => `${attempt.provider}:${attempt.outcome}`);
/** Far longer than the hedge's 50 ms: the slow fake never answers within a test that hedges. */
const SLOW_MS = 3_000;

describe('hedging with a slow fake', () => {
  it('sends the next candidate when the first is slow; the first to answer wins and the other is aborted', async () => {
    const gateway = gatewayWith({ hedge: { afterMs: 50 } });
    openai.enqueue({ content: 'too late', delayMs: SLOW_MS });
    anthropic.enqueue({ content: [{ type: 'text', text: 'from the hedge' }] });
    const started = performance.now();
    const response = await gateway.createCompletion(call);
    expect(performance.now() - started).toBeLessThan(SLOW_MS - 500);
    expect(response.choices[0]!.message.content).toBe('from the hedge');
    expect(outcomes(response.switchyard)).toEqual(['openai:hedge_lost', 'anthropic:ok']);
    expect(response.switchyard.attempts[0]!.duration_ms).toBeLessThan(SLOW_MS);
    // The slow request was aborted: its connection closed before the fake answered.
    await expect.poll(() => openai.requests.at(-1)?.closedEarly).toBe(true);
    await gateway.close();
  });

  it('sends nothing more when the first answers in time', async () => {
    const gateway = gatewayWith({ hedge: { afterMs: 2_000 } });
    const before = anthropic.requests.length;
    openai.enqueue({ content: 'in time' });
    const response = await gateway.createCompletion(call);
    expect(response.choices[0]!.message.content).toBe('in time');
    expect(outcomes(response.switchyard)).toEqual(['openai:ok']);
    expect(anthropic.requests.length).toBe(before);
    expect(openai.requests.at(-1)?.closedEarly).not.toBe(true);
    await gateway.close();
  });

  it('is off by default, and a call turns off the gateway’s with hedge: false', async () => {
    const before = anthropic.requests.length;
    for (const [gateway, hedge] of [
      [gatewayWith(), undefined],
      [gatewayWith({ hedge: { afterMs: 20 } }), false as const],
    ] as const) {
      openai.enqueue({ content: 'waited for', delayMs: 300 });
      const response = await gateway.createCompletion({ ...call, ...(hedge === undefined ? {} : { hedge }) });
      expect(response.choices[0]!.message.content).toBe('waited for');
      expect(outcomes(response.switchyard)).toEqual(['openai:ok']);
      await gateway.close();
    }
    expect(anthropic.requests.length).toBe(before);
  });

  it('per call: a hedge the gateway does not set', async () => {
    const gateway = gatewayWith();
    openai.enqueue({ content: 'too late', delayMs: SLOW_MS });
    anthropic.enqueue({ content: [{ type: 'text', text: 'hedged per call' }] });
    const response = await gateway.createCompletion({ ...call, hedge: { afterMs: 50 } });
    expect(response.choices[0]!.message.content).toBe('hedged per call');
    expect(outcomes(response.switchyard)).toEqual(['openai:hedge_lost', 'anthropic:ok']);
    await gateway.close();
  });

  it('streams: the first chunk with content wins', async () => {
    const gateway = gatewayWith({ hedge: { afterMs: 50 } });
    openai.enqueue({ content: 'too late', delayMs: SLOW_MS });
    anthropic.enqueue({ content: [{ type: 'text', text: 'streamed by the hedge' }] });
    const stream = await gateway.createCompletion({ ...call, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('streamed by the hedge');
    expect(outcomes(stream.switchyard)).toEqual(['openai:hedge_lost', 'anthropic:ok']);
    await expect.poll(() => openai.requests.at(-1)?.closedEarly).toBe(true);
    await gateway.close();
  });

  it('streams: a fast first sends no hedge', async () => {
    const gateway = gatewayWith({ hedge: { afterMs: 2_000 } });
    const before = anthropic.requests.length;
    openai.enqueue({ content: 'first and fast' });
    const stream = await gateway.createCompletion({ ...call, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('first and fast');
    expect(anthropic.requests.length).toBe(before);
    await gateway.close();
  });

  it('a hedged attempt that fails lets the other go on: the first’s error does not fail the call', async () => {
    const gateway = gatewayWith({ hedge: { afterMs: 50 } });
    // A 400 ends an unhedged call at once; here the hedge is already on its way.
    openai.enqueue({ error: { status: 400, message: 'bad luck' }, delayMs: 300 });
    anthropic.enqueue({ content: [{ type: 'text', text: 'still answered' }], delayMs: 800 });
    const response = await gateway.createCompletion(call);
    expect(response.choices[0]!.message.content).toBe('still answered');
    expect(outcomes(response.switchyard)).toEqual(['openai:client_error', 'anthropic:ok']);
    await gateway.close();
  });

  it('the hedge’s failure does not fail the call either: the first answers', async () => {
    const gateway = gatewayWith({ hedge: { afterMs: 50 } });
    openai.enqueue({ content: 'slow but sure', delayMs: 500 });
    anthropic.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'no' } });
    const response = await gateway.createCompletion(call);
    expect(response.choices[0]!.message.content).toBe('slow but sure');
    expect(outcomes(response.switchyard)).toEqual(['anthropic:invalid_request_error', 'openai:ok']);
    await gateway.close();
  });

  it('percentile: no hedge until the first candidate has ten durations here, then after their percentile', async () => {
    const gateway = gatewayWith({ hedge: { percentile: 90 } });
    const before = anthropic.requests.length;
    openai.enqueue({ content: 'unobserved, waited for', delayMs: 300 });
    const waited = await gateway.createCompletion(call);
    expect(outcomes(waited.switchyard)).toEqual(['openai:ok']);
    expect(anthropic.requests.length).toBe(before);
    for (let served = 1; served < LatencyTracker.MIN_FOR_PERCENTILE; served++) await gateway.createCompletion(call);
    // Ten durations, nine of them a few ms: its p90 is far below the slow reply.
    openai.enqueue({ content: 'too late', delayMs: SLOW_MS });
    anthropic.enqueue({ content: [{ type: 'text', text: 'past the p90' }] });
    const hedged = await gateway.createCompletion(call);
    expect(hedged.choices[0]!.message.content).toBe('past the p90');
    expect(outcomes(hedged.switchyard)).toEqual(['openai:hedge_lost', 'anthropic:ok']);
    await gateway.close();
  });

  it('percentile with afterMs: afterMs until there are enough durations', async () => {
    const gateway = gatewayWith({ hedge: { percentile: 90, afterMs: 50 } });
    openai.enqueue({ content: 'too late', delayMs: SLOW_MS });
    anthropic.enqueue({ content: [{ type: 'text', text: 'hedged meanwhile' }] });
    const response = await gateway.createCompletion(call);
    expect(outcomes(response.switchyard)).toEqual(['openai:hedge_lost', 'anthropic:ok']);
    await gateway.close();
  });

  it('is refused when malformed', async () => {
    const gateway = gatewayWith();
    await expect(gateway.createCompletion({ ...call, hedge: { afterMs: -1 } })).rejects.toMatchObject({
      status: 400,
      param: 'hedge',
      message: expect.stringMatching(/afterMs/),
    });
    await gateway.close();
  });
});

describe('LatencyTracker.percentile', () => {
  it('says nothing below ten durations, then reads the latest 64', () => {
    const latency = new LatencyTracker();
    for (let ms = 1; ms <= 9; ms++) latency.observe('p', 'm', ms);
    expect(latency.percentile('p', 'm', 90)).toBeUndefined();
    latency.observe('p', 'm', 10);
    expect(latency.percentile('p', 'm', 90)).toBe(9);
    for (let ms = 11; ms <= 100; ms++) latency.observe('p', 'm', ms);
    // The latest 64 are 37..100: the 58th of them is the p90, the smallest the p1.
    expect([latency.percentile('p', 'm', 90), latency.percentile('p', 'm', 1)]).toEqual([94, 37]);
  });
});

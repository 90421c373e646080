import OpenAI, { type APIError } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS_UNTIL_HELLO_FROM, hello } from './fault-rows.ts';
import { CALL_ID } from './fault-surface-serve.ts';
import {
  type Backends,
  bounded,
  guardUnhandledRejections,
  MODELS,
  PROVIDERS,
  rejection,
  startBackends,
} from './harness.ts';
import { isOpenAIErrorBody, type ServeRig, startServeRig } from './serve-harness.ts';

/**
 * What only an HTTP client of `switchyard serve` meets, beside the fault matrix's rows that fault-matrix.test.ts
 * runs on both surfaces: client keys the server refuses before any call is made, and clients that leave while the
 * provider is still answering. The same guards run after each test: no unhandled rejection, nothing left attached
 * to a connection on the fake providers' side, no "unexpected error" in the server's log.
 */

let backends: Backends;
let rig: ServeRig;
beforeAll(async () => {
  backends = await startBackends();
  rig = await startServeRig(backends);
});
afterAll(async () => {
  await rig?.stop();
  await backends?.close();
});
guardUnhandledRejections();
afterEach(async () => {
  for (const provider of PROVIDERS) {
    const front = backends.front[provider];
    expect(await front.settled(), `${provider}: responses still attached to a connection after the test`).toBe(0);
    front.reset();
  }
  expect(
    rig.logs.filter((line) => line.level !== 'info'),
    'unexpected errors in the server log',
  ).toEqual([]);
});

/** A refusal of the server's own, both ways: raw fetch (status, OpenAI error body, no call id), then the SDK. */
async function refused(key: string): Promise<{ error: Record<string, any> }> {
  const request = { model: MODELS.openai, messages: hello };
  const response = await bounded(rig.post('/v1/chat/completions', request, { key }));
  const body = (await response.json()) as { error: Record<string, any> };
  expect(response.status).toBe(401);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(isOpenAIErrorBody(body), JSON.stringify(body)).toBe(true);
  expect(body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
  expect(response.headers.get('x-switchyard-call-id')).toBeNull();
  const sdk = (await rejection(rig.openai(key).chat.completions.create(request))) as APIError;
  expect(sdk).toBeInstanceOf(OpenAI.AuthenticationError);
  expect(sdk.status).toBe(401);
  expect(sdk.code).toBe('invalid_api_key');
  return body;
}

describe('client keys the server refuses: 401 before any call is made', () => {
  it('a key of no server → 401 invalid_api_key (AuthenticationError); none → 401 with www-authenticate', async () => {
    await refused('sy-not-a-key-of-this-server');
    const missing = await bounded(
      rig.post('/v1/chat/completions', { model: MODELS.openai, messages: hello }, { key: null }),
    );
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(backends.front.openai.requests).toHaveLength(0);
  });

  it('a revoked key → 401 invalid_api_key saying it was revoked, from the next request on', async () => {
    const { key, info } = await rig.server.keys.create('revoked');
    const before = await bounded(
      rig.openai(key).chat.completions.create({ model: MODELS.openai, messages: hello }).withResponse(),
    );
    expect(before.response.headers.get('x-switchyard-call-id')).toMatch(CALL_ID);
    await rig.server.keys.revoke(info.id);
    const { error } = await refused(key);
    expect(error.message).toContain('revoked');
    expect(backends.front.openai.requests).toHaveLength(1);
  });
});

describe('client leaves: the server closes its upstream connection', () => {
  it.each(PROVIDERS)(
    '%s: abort in the middle of a stream (SDK) → upstream closed, call recorded as aborted',
    async (provider) => {
      const front = backends.front[provider];
      front.enqueue({ kind: 'stall', events: EVENTS_UNTIL_HELLO_FROM[provider] });
      const controller = new AbortController();
      const { data: stream, response } = await bounded(
        rig
          .openai()
          .chat.completions.create(
            { model: MODELS[provider], messages: hello, stream: true, metadata: { agent_id: `leaver-${provider}` } },
            { signal: controller.signal },
          )
          .withResponse(),
      );
      const callId = response.headers.get('x-switchyard-call-id');
      expect(callId).toMatch(CALL_ID);
      await bounded(
        (async () => {
          for await (const chunk of stream) {
            if (chunk.choices[0]?.delta.content) break;
          }
        })(),
      );
      controller.abort();
      // The stalled upstream response ends only when the server closes its connection to the provider.
      expect(await front.settled(5_000)).toBe(0);
      await expect
        .poll(() => rig.logs.find((line) => line.msg === 'request' && line.call_id === callId), { timeout: 5_000 })
        .toMatchObject({ status: 200, aborted: true });
      await rig.server.gateway.flush();
      const [record] = (await rig.server.gateway.calls.list({ agent_id: `leaver-${provider}` })).data;
      expect(record).toMatchObject({ id: callId, status: 'error', stream: true });
    },
  );

  it.each(PROVIDERS)(
    '%s: abort while the provider has not answered (raw fetch) → upstream closed, logged 499',
    async (provider) => {
      const front = backends.front[provider];
      front.enqueue({ kind: 'hang' });
      const controller = new AbortController();
      const pending = rig.post(
        '/v1/chat/completions',
        { model: MODELS[provider], messages: hello, metadata: { agent_id: `impatient-${provider}` } },
        { signal: controller.signal },
      );
      await expect.poll(() => front.requests.length, { timeout: 5_000 }).toBe(1);
      controller.abort();
      await expect(bounded(pending)).rejects.toThrow(/abort/i);
      expect(await front.settled(5_000)).toBe(0);
      await expect
        .poll(() => rig.logs.filter((line) => line.msg === 'request' && line.status === 499).length, { timeout: 5_000 })
        .toBeGreaterThan(0);
      await rig.server.gateway.flush();
      const [record] = (await rig.server.gateway.calls.list({ agent_id: `impatient-${provider}` })).data;
      expect(record).toMatchObject({ status: 'error', error: { code: 'aborted' } });
    },
  );
});
